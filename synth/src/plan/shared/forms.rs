//! Instruction forms of one side of a shared-memory round trip: which
//! tensor vectors an access needs as the lowest offset bits (its *chunk*),
//! which register bits index the elements one instruction moves, and which
//! tensor vectors vary across one wavefront (its *phase*). PTX ISA sections
//! `st.shared`/`ld.shared` (vectors up to 128 bits), `stmatrix` and
//! `ldmatrix` (`.m8n8.x1/.x2/.x4[.trans].shared.b16`); Triton's equivalents
//! are in `lib/Conversion/TritonGPUToLLVM/Utility.cpp` (`getSrcDstTiles`).

use crate::plan::ir::{phase_lanes_banks, SmemInstr};
use crate::plan::strategy::SmemForm;

/// One side's columns over tag bits, with its independent register bits.
#[derive(Clone, Debug)]
pub struct SideCols {
    pub reg: Vec<u64>,
    pub lane: Vec<u64>,
    pub warp: Vec<u64>,
    /// Register bits whose columns are non-zero and independent of earlier
    /// ones (greedy, low to high): the registers that hold distinct data are
    /// exactly the combinations of these bits.
    pub ind: Vec<usize>,
}

impl SideCols {
    /// Columns of one side of an [`Analysis`](crate::plan::Analysis).
    pub fn of(s: &crate::plan::Side) -> SideCols {
        let mut b = crate::gf2::XorBasis::default();
        let ind = (0..s.reg.len())
            .filter(|&i| s.reg[i] != 0 && b.insert(s.reg[i]))
            .collect();
        SideCols {
            reg: s.reg.clone(),
            lane: s.lane.clone(),
            warp: s.warp.clone(),
            ind,
        }
    }
    /// The independent register bit whose column is `v`.
    pub fn reg_bit_of(&self, v: u64) -> Option<usize> {
        self.ind.iter().copied().find(|&b| self.reg[b] == v)
    }
}

/// How one side moves its data through shared memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Form {
    pub instr: SmemInstr,
    /// Tensor vectors that must be offset bits `0..chunk.len()`, in order.
    pub chunk: Vec<u64>,
    /// Register bits that index the elements of one instruction (bit `i` of
    /// the element index is register bit `data_regs[i]`).
    pub data_regs: Vec<usize>,
    /// Matrix forms: tensor vectors of row bits 0..2 (address lanes 0..7)
    /// and of the matrix index (address lanes 8, 16): `rows ++ idx`.
    pub rows: Vec<u64>,
    /// Tensor vectors that vary across the threads of one wavefront phase.
    pub phase: Vec<u64>,
}

impl Form {
    /// The form as a strategy names it, for elements of `width` bits
    /// (`v4`, `v2`, `b32`, `u16`, `u8`, `x4`, `x2.trans`, ...).
    pub fn strategy_form(&self, width: u32) -> SmemForm {
        SmemForm::of(self.instr, (1u32 << self.chunk.len()) * width)
    }
}

/// The vector forms of `x` for the low offset bits `c`: every prefix of the
/// longest prefix of `c` made of `x`'s independent register columns, at most
/// 128 bits (a shorter vector can leave bank bits free for the other side);
/// wavefront phases over `banks` banks of 4 bytes (32 on NVIDIA).
pub fn vector_forms(x: &SideCols, c: &[u64], width: u32, banks: u32) -> Vec<Form> {
    let longest = vector_form(x, c, width, banks);
    (0..=longest.chunk.len())
        .rev()
        .map(|k| vector_form(x, &c[..k], width, banks))
        .collect()
}

/// The vector form of `x` for the low offset bits `c`: the longest prefix of
/// `c` made of `x`'s independent register columns, at most 128 bits.
pub fn vector_form(x: &SideCols, c: &[u64], width: u32, banks: u32) -> Form {
    let mut data_regs = Vec::new();
    for &v in c {
        if (2u32 << data_regs.len()) * width > 128 {
            break;
        }
        match x.reg_bit_of(v) {
            Some(b) if !data_regs.contains(&b) => data_regs.push(b),
            _ => break,
        }
    }
    let k = data_regs.len();
    let bytes = (1u32 << k) * width / 8;
    Form {
        instr: SmemInstr::Vector,
        chunk: c[..k].to_vec(),
        data_regs,
        rows: vec![],
        phase: x.lane[..phase_lanes_banks(bytes, banks).min(x.lane.len())].to_vec(),
    }
}

/// Every `ldmatrix`/`stmatrix` form of `x` whose chunk is a prefix of `c`,
/// one per matrix count (`.x1`, `.x2`, `.x4`) and, with `.trans`, per choice
/// of the register bit that selects the half. `width`: 8, 16 or 32 without
/// `.trans`; 16 with it.
pub fn matrix_forms(x: &SideCols, c: &[u64], width: u32) -> Vec<Form> {
    let mut out = Vec::new();
    if !matches!(width, 8 | 16 | 32) || x.lane.len() != 5 {
        return out;
    }
    let npack = (32 / width).trailing_zeros() as usize;
    // Without .trans: chunk = [pack register columns.., lane0, lane1].
    if c.len() >= npack + 2 && c[npack] == x.lane[0] && c[npack + 1] == x.lane[1] {
        let pack: Option<Vec<usize>> = c[..npack].iter().map(|&v| x.reg_bit_of(v)).collect();
        if let Some(pack) = pack {
            push_counts(
                &mut out,
                x,
                pack,
                c[..npack + 2].to_vec(),
                x.lane[2..5].to_vec(),
                false,
            );
        }
    }
    // With .trans (16-bit cells): chunk = [lane2, lane3, lane4]; rows = [h, lane0, lane1].
    if width == 16 && c.len() >= 3 && c[..3] == x.lane[2..5] {
        for &h in &x.ind {
            let rows = vec![x.reg[h], x.lane[0], x.lane[1]];
            push_counts(&mut out, x, vec![h], c[..3].to_vec(), rows, true);
        }
    }
    out
}

fn push_counts(
    out: &mut Vec<Form>,
    x: &SideCols,
    pack: Vec<usize>,
    chunk: Vec<u64>,
    rows: Vec<u64>,
    trans: bool,
) {
    let rest: Vec<usize> = x
        .ind
        .iter()
        .copied()
        .filter(|b| !pack.contains(b))
        .collect();
    for nidx in 0..=rest.len().min(2) {
        let idx = &rest[..nidx];
        let mut data_regs = pack.clone();
        data_regs.extend_from_slice(idx);
        let mut all_rows = rows.clone();
        all_rows.extend(idx.iter().map(|&b| x.reg[b]));
        out.push(Form {
            instr: SmemInstr::Matrix {
                count: 1 << nidx,
                trans,
            },
            chunk: chunk.clone(),
            data_regs,
            rows: all_rows,
            phase: rows.clone(),
        });
    }
}
