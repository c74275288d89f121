use super::*;
use crate::input::parse_layout;

fn layout(text: &str, shape: &[i64], warps: u32) -> LinearLayout {
    parse_layout(text)
        .expect("layout text")
        .encoding
        .to_linear_layout(shape, warps)
        .expect("layout")
}

/// ldmatrix-like rows: lanes 0-7 rows 0-7, lanes 8-31 the four 16-byte
/// chunks, 8 consecutive f16 per thread (128 bits), repeated along N.
const ROWS_V8: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>";
const SW333: &str = "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)";
const PLAIN: &str = "(_8,_64):(_64,_1)";

#[test]
fn reads_composed_and_plain_layouts() {
    let s = SmemLayout::parse(SW333).unwrap();
    assert_eq!(s.swizzle, Some(Swizzle { b: 3, m: 3, s: 3 }));
    assert_eq!(s.modes, vec![8, 64]);
    // column-major index: 3 row bits (stride 64), then 6 column bits
    assert_eq!(s.index_offsets, vec![64, 128, 256, 1, 2, 4, 8, 16, 32]);
    // row 1 is XORed into the 16-byte chunk: offset 64 -> 64 ^ 8
    assert_eq!(s.offsets(16).unwrap()[0], 72);
    let p = SmemLayout::parse(PLAIN).unwrap();
    assert_eq!(p.swizzle, None);
    assert_eq!(p.offsets(16).unwrap()[0], 64);
    // without the offset, and Swizzle<...> spelled out
    let t = SmemLayout::parse("Swizzle<3,3,3> o (_8,_64):(_64,_1)").unwrap();
    assert_eq!(t.offsets(16).unwrap(), s.offsets(16).unwrap());
    // rank 1 and nested modes
    let r = SmemLayout::parse("Sw<2,0,2> o _0 o _16:_1").unwrap();
    assert_eq!(r.modes, vec![16]);
    let n = SmemLayout::parse("((_2,_4),_8):((_1,_16),_2)").unwrap();
    assert_eq!(n.modes, vec![8, 8]);
    assert_eq!(n.index_offsets, vec![1, 16, 32, 2, 4, 8]);
}

#[test]
fn smem_ptr_swizzles_byte_addresses() {
    // CUTLASS's SW128 K-major atom for f16: Sw<3,4,3> on bytes is Sw<3,3,3> on f16
    let b = SmemLayout::parse("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)").unwrap();
    assert_eq!(b.ptr_bits, Some(16));
    assert_eq!(b.elem_bits(None).unwrap(), 16);
    let e = SmemLayout::parse(SW333).unwrap();
    assert_eq!(b.offsets(16).unwrap(), e.offsets(16).unwrap());
    assert!(b
        .elem_bits(Some("f32"))
        .unwrap_err()
        .contains("smem_ptr[16b]"));
    assert!(e.elem_bits(None).unwrap_err().contains("--dtype"));
    assert_eq!(e.elem_bits(Some("16")).unwrap(), 16);
    let inside = SmemLayout::parse("Sw<3,0,3> o smem_ptr[32b](unset) o _64:_1").unwrap();
    assert!(inside
        .offsets(32)
        .unwrap_err()
        .contains("inside an element"));
}

#[test]
fn negative_shift_moves_bits_up() {
    let s = Swizzle { b: 2, m: 0, s: -4 };
    assert_eq!(s.apply(0b11), 0b11_0011);
    assert_eq!(s.apply(0b1_0000), 0b1_0000);
    let p = Swizzle { b: 3, m: 4, s: 3 };
    assert_eq!(p.apply(0b101 << 7), (0b101 << 7) | (0b101 << 4));
}

#[test]
fn refuses_bad_text_with_the_column() {
    let e = SmemLayout::parse("Sw<3,4> o _0 o (_8,_64):(_64,_1)").unwrap_err();
    assert_eq!(e.pos, Pos { line: 1, col: 7 });
    assert!(e.msg.contains("three numbers"), "{e}");
    let e = SmemLayout::parse("Sw<3,3,2> o _0 o (_8,_64):(_64,_1)").unwrap_err();
    assert_eq!(e.pos.col, 8);
    assert!(e.msg.contains("|S| must be at least B"), "{e}");
    let e = SmemLayout::parse("Sw<3,3,3> o _0 o (_8,_64):(_3,_1)").unwrap_err();
    assert_eq!(e.pos.col, 28);
    assert!(
        e.msg.contains("mode 0: stride 3 is not a power of two"),
        "{e}"
    );
    let e = SmemLayout::parse("(_8,_64):(_32,_1)").unwrap_err();
    assert!(e.msg.contains("carry"), "{e}");
    let e = SmemLayout::parse("(_8,_64):(_0,_1)").unwrap_err();
    assert!(e.msg.contains("stride 0"), "{e}");
    let e = SmemLayout::parse("(_8,_48):(_64,_1)").unwrap_err();
    assert!(e.msg.contains("mode 1: shape 48"), "{e}");
    let e = SmemLayout::parse("Sw<3,3,3> o _16 o (_8,_64):(_64,_1)").unwrap_err();
    assert!(e.msg.contains("offset 16"), "{e}");
    let e = SmemLayout::parse("Sw<3,3,3> _0 o (_8,_64):(_64,_1)").unwrap_err();
    assert_eq!(e.pos.col, 11);
    for bad in [
        "",
        "Sw<",
        "Sw<3,3,3> o",
        "Sw<3,3,3> o smem_ptr[16",
        "(_8,_64)",
        "(_8,_64):(_64)",
        "Sw<99999999999999999999,3,3> o _0 o _8:_1",
        "Swizzle<2,1,-9223372036854775808> o (8,64):(64,1)",
        "_2147483648:_1",
        "_4:_536870912",
        "Sw<-1,3,3> o _8:_1",
        "(_8,_64):(_64,_1) junk",
    ] {
        assert!(SmemLayout::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn swizzled_rows_are_conflict_free_and_plain_rows_conflict() {
    let l = layout(ROWS_V8, &[8, 64], 1);
    let sw = SmemLayout::parse(SW333).unwrap();
    let r = analyse_access(&sw, &l, 16, None).unwrap();
    assert_eq!(r.vector_elems, 8);
    assert_eq!(r.instr_name(), "st/ld.shared.v4.b32");
    assert_eq!(r.instrs.len(), 2);
    // 32 lanes x 16 bytes = 512 bytes = 4 wavefronts, the minimum
    assert_eq!(r.totals(), (8, 8, 0));
    assert!(r.instrs.iter().all(|i| i.conflict_lanes.is_empty()));
    // unswizzled: in each quarter warp (one phase of a 16-byte access) the
    // 8 lanes read rows 0..7 at one 16-byte chunk; rows are 128 bytes apart,
    // so all 8 land on the same 4 banks: 8 wavefronts per phase, 4 phases
    let plain = SmemLayout::parse(PLAIN).unwrap();
    let r = analyse_access(&plain, &l, 16, None).unwrap();
    for i in &r.instrs {
        assert_eq!(
            (i.wavefronts, i.min_wavefronts, i.bank_conflicts),
            (32, 4, 28)
        );
        assert_eq!(i.conflict_lanes, (0..32).collect::<Vec<_>>());
    }
    assert_eq!(r.totals(), (64, 8, 56));
    // the byte swizzle CUTLASS's SW128 atom prints is the same layout
    let atom = SmemLayout::parse("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)").unwrap();
    assert_eq!(
        analyse_access(&atom, &l, 16, None).unwrap().totals(),
        (8, 8, 0)
    );
}

#[test]
fn mma_c_fragment_stores() {
    // the m16n8k16 C fragment (f16 pairs) over 16x64: lane l holds columns
    // 2(l%4), +1 of row l/4 (and +8): one 32-bit word per lane per store.
    let l = layout("ptx:mma.m16n8k16.c.f16", &[16, 64], 1);
    let sw = SmemLayout::parse("Sw<3,3,3> o _0 o (_16,_64):(_64,_1)").unwrap();
    let r = analyse_access(&sw, &l, 16, None).unwrap();
    assert_eq!(r.vector_elems, 2);
    assert_eq!(r.instrs.len(), 16);
    assert_eq!(r.totals(), (16, 16, 0));
    // unswizzled: 8 rows x 4 words, every row 128 bytes: bank l%4 + 4j
    // serves the 8 rows' words: 8 wavefronts for 128 bytes (minimum 1)
    let plain = SmemLayout::parse("(_16,_64):(_64,_1)").unwrap();
    let r = analyse_access(&plain, &l, 16, None).unwrap();
    assert!(r
        .instrs
        .iter()
        .all(|i| (i.wavefronts, i.min_wavefronts) == (8, 1)));
    assert_eq!(r.totals(), (128, 16, 112));
}

#[test]
fn column_accesses_of_a_row_major_tile() {
    // one f16 per thread, lanes down a column of a 64-wide row-major tile:
    // 32 rows 128 bytes apart, all in bank 0: 32 wavefronts, minimum 1
    let l = layout(
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}>",
        &[32, 64],
        1,
    );
    let plain = SmemLayout::parse("(_32,_64):(_64,_1)").unwrap();
    // (its registers run along the row: by default 8 of them move as one
    // 128-bit vector; --vector 16 makes it a column access)
    assert_eq!(
        analyse_access(&plain, &l, 16, None).unwrap().vector_elems,
        8
    );
    let r = analyse_access(&plain, &l, 16, Some(16)).unwrap();
    assert_eq!(r.instr_name(), "st/ld.shared.u16");
    assert_eq!(r.instrs.len(), 64);
    assert!(r
        .instrs
        .iter()
        .all(|i| (i.wavefronts, i.min_wavefronts, i.bank_conflicts) == (32, 1, 31)));
}

#[test]
fn vector_width_is_checked() {
    let l = layout(ROWS_V8, &[8, 64], 1);
    let sw = SmemLayout::parse(SW333).unwrap();
    let r = analyse_access(&sw, &l, 16, Some(32)).unwrap();
    assert_eq!((r.vector_elems, r.instrs.len()), (2, 8));
    assert_eq!(r.instr_name(), "st/ld.shared.b32");
    let e = analyse_access(&sw, &l, 16, Some(256)).unwrap_err();
    assert!(e.contains("at most 128"), "{e}");
    let e = analyse_access(&sw, &l, 16, Some(24)).unwrap_err();
    assert!(e.contains("--vector 24"), "{e}");
    let c = layout("ptx:mma.m16n8k16.c.f16", &[16, 64], 1);
    let s16 = SmemLayout::parse("(_16,_64):(_64,_1)").unwrap();
    let e = analyse_access(&s16, &c, 16, Some(64)).unwrap_err();
    assert!(e.contains("register 2 of a thread lands at offset"), "{e}");
    // a tile that is not the layout's
    let e = analyse_access(
        &SmemLayout::parse("(_16,_32):(_32,_1)").unwrap(),
        &l,
        16,
        None,
    )
    .unwrap_err();
    assert!(e.contains("tile is 16x32"), "{e}");
}

#[test]
fn offset_bases_invert_the_layout() {
    let sw = SmemLayout::parse(SW333).unwrap();
    let off = sw.offsets(16).unwrap();
    let b = sw.offset_bases(&[8, 64], &off);
    assert_eq!(b.len(), 9);
    assert_eq!(b[0], Some(vec![0, 1]));
    // offset 64 holds row 1 at column 8 (its chunk XORed by the row)
    assert_eq!(b[6], Some(vec![1, 8]));
    // padding: offset bit 6 of rows 128 elements apart holds nothing
    let pad = SmemLayout::parse("(_8,_64):(_128,_1)").unwrap();
    let off = pad.offsets(16).unwrap();
    let b = pad.offset_bases(&[8, 64], &off);
    assert_eq!(b[6], None);
    assert_eq!(b[7], Some(vec![1, 0]));
}
