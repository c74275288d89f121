//! Pictures of layouts and conversion plans (issue 9).
//!
//! A [`Picture`] is rows of [`Panel`]s: a tensor drawn cell by cell
//! ([`Panel::Tensor`]: one cell per element, labelled with the hardware slot
//! that holds it), a table of lanes ([`Panel::Table`]: what each lane does
//! in a plan stage), or notes ([`Panel::Text`]). [`layout_picture`] draws
//! one layout; [`conversion_picture`] draws both layouts of a conversion
//! side by side and then each stage of its plan: the lane each lane reads in
//! a shuffle, the register each lane takes in a select, the bank each lane's
//! shared-memory address falls in, and the tensor coloured by the bank its
//! element is stored to.
//!
//! Output: [`svg::render`] (an SVG document, one `<rect class="cell">` per
//! tensor element inside a `<g class="layout" data-elements="N">` per drawn
//! tensor) and [`text::render`] (tables like `triton-tensor-layout`: rows of
//! the tensor, each cell `T3:R1` for one warp or `W0:L3:R1` for several).
//!
//! Tensors of rank 1 are drawn as one row; of rank > 2 as a 2-D table whose
//! rows flatten the leading dims (the panel says so).

#![forbid(unsafe_code)]

use synth::layout::{LinearLayout, BLOCK, LANE, REGISTER, WARP};
use synth::plan::{tag_columns, Analysis, Conversion, Dir, ShflMode, SmemAccess, SmemInstr, Stage};
use synth::search::Chosen;

pub mod svg;
pub mod text;

/// The most tensor elements one drawing takes (an SVG of 65536 labelled
/// cells is already tens of megabytes).
pub const MAX_ELEMENTS: u64 = 1 << 16;

/// Rows of a stage table drawn at most (the rest are summarised).
pub const MAX_TABLE_ROWS: usize = 64;

/// Why a picture cannot be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    #[error("{what}: a tensor of {elements} elements is too large to draw (at most {max})")]
    TooLarge {
        what: String,
        elements: u64,
        max: u64,
    },
    #[error("{what}: {detail}")]
    Layout { what: String, detail: String },
}

/// A hardware slot: register `reg` of lane `lane` of warp `warp` of CTA
/// `block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slot {
    pub block: u32,
    pub warp: u32,
    pub lane: u32,
    pub reg: u32,
}

/// Which hardware slots hold each element of a tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holders {
    /// The tensor shape (the layout's out-dim sizes, `dim0` first).
    pub shape: Vec<i64>,
    /// Warps per CTA and CTAs of the layout.
    pub warps: u32,
    pub blocks: u32,
    /// Per element, in row-major order (last dim minor): every slot that
    /// holds it, sorted by (block, warp, lane, register). More than one:
    /// broadcast copies.
    pub slots: Vec<Vec<Slot>>,
}

impl Holders {
    /// The holders of every element of `l` (in dims `register, lane, warp,
    /// block`). Errors: a tensor over [`MAX_ELEMENTS`], an in dim other
    /// than the four.
    pub fn of(l: &LinearLayout, what: &str) -> Result<Holders, DrawError> {
        for n in l.in_dim_names() {
            if ![REGISTER, LANE, WARP, BLOCK].contains(&n.as_str()) {
                return Err(DrawError::Layout {
                    what: what.into(),
                    detail: format!("in dim `{n}` (expected register, lane, warp, block)"),
                });
            }
        }
        let shape: Vec<i64> = l.out_dims().iter().map(|d| d.1 as i64).collect();
        let elements: u64 = 1u64
            .checked_shl(l.total_out_bits() as u32)
            .unwrap_or(u64::MAX);
        let slots_n: u64 = 1u64
            .checked_shl(l.total_in_bits() as u32)
            .unwrap_or(u64::MAX);
        if elements > MAX_ELEMENTS || slots_n > 64 * MAX_ELEMENTS {
            return Err(DrawError::TooLarge {
                what: what.into(),
                elements,
                max: MAX_ELEMENTS,
            });
        }
        let cols = tag_columns(l);
        let bits = |d: &str| l.in_dim_size_log2(d);
        let (rb, lb, wb) = (bits(REGISTER), bits(LANE), bits(WARP));
        // tag_columns orders columns as the layout's in dims; map each bit to
        // its (dim, bit) to decode a slot index whatever the order
        let mut order = Vec::new();
        for d in l.in_dims() {
            for i in 0..d.bases.len() {
                order.push((d.name.clone(), i as u32));
            }
        }
        let mut slots = vec![Vec::new(); elements as usize];
        for h in 0..slots_n {
            let mut tag = 0u64;
            let mut s = Slot {
                block: 0,
                warp: 0,
                lane: 0,
                reg: 0,
            };
            for (j, (name, i)) in order.iter().enumerate() {
                if h >> j & 1 == 1 {
                    tag ^= cols[j];
                    let f = match name.as_str() {
                        n if n == REGISTER => &mut s.reg,
                        n if n == LANE => &mut s.lane,
                        n if n == WARP => &mut s.warp,
                        _ => &mut s.block,
                    };
                    *f |= 1 << i;
                }
            }
            if let Some(v) = slots.get_mut(tag as usize) {
                v.push(s);
            }
        }
        for v in &mut slots {
            v.sort();
        }
        let _ = (rb, lb);
        Ok(Holders {
            shape,
            warps: 1 << wb,
            blocks: 1 << bits(BLOCK),
            slots,
        })
    }

    /// The label of a slot: `T{lane}:R{reg}` for one warp, else
    /// `W{warp}:L{lane}:R{reg}`; `B{block}:` in front for several CTAs.
    pub fn label(&self, s: &Slot) -> String {
        let b = if self.blocks > 1 {
            format!("B{}:", s.block)
        } else {
            String::new()
        };
        if self.warps > 1 || self.blocks > 1 {
            format!("{b}W{}:L{}:R{}", s.warp, s.lane, s.reg)
        } else {
            format!("T{}:R{}", s.lane, s.reg)
        }
    }
}

/// One drawn tensor element.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Short label (the first holder, e.g. `W0:L3:R1`; `b5` for banks).
    pub label: String,
    /// Every holder, for tooltips.
    pub tip: String,
    /// Fill colour, hue in degrees and lightness in percent.
    pub hue: f64,
    pub light: f64,
    /// Copies of the element (> 1: broadcast).
    pub copies: usize,
    /// Marked (drawn with a thick red outline, `!` after the label in text):
    /// a shared-memory word a bank-conflicting lane accesses.
    pub mark: bool,
}

/// A table cell of a stage panel.
#[derive(Clone, Debug, PartialEq)]
pub struct TableCell {
    pub label: String,
    pub hue: f64,
    pub light: f64,
    /// The number the label shows (the source lane of a shuffle, the
    /// register of a select, the selector of a prmt, a bank), as the
    /// stage's [`StageTag::value`] names it.
    pub value: u32,
}

/// The plan stage a panel draws: the SVG writes it as `class="stage
/// <kind>"` and `data-` attributes, so that tools and tests can read the
/// stages back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageTag {
    /// Position in the plan, from 0.
    pub index: usize,
    /// The stage's name in the plan IR (`Shuffle`, `Select`, `BytePerm`,
    /// `SmemStore`, `SmemLoad`, `Barrier`, `Pack`, `Unpack`, `RegRename`).
    pub kind: &'static str,
    /// What a table cell's [`TableCell::value`] is (`src-lane`, `reg`,
    /// `selector`, `bank`); `None` for stages drawn as text.
    pub value: Option<&'static str>,
    /// Facts of the stage as `(name, value)`: `count` (instructions per
    /// thread), `mode`, `scope`, `width`, ...
    pub attrs: Vec<(&'static str, String)>,
}

impl StageTag {
    fn new(index: usize, s: &Stage, value: Option<&'static str>) -> StageTag {
        StageTag {
            index,
            kind: s.name(),
            value,
            attrs: Vec::new(),
        }
    }
    fn with(mut self, name: &'static str, v: impl ToString) -> StageTag {
        self.attrs.push((name, v.to_string()));
        self
    }
}

/// One panel of a picture.
#[derive(Clone, Debug, PartialEq)]
pub enum Panel {
    /// A tensor, one cell per element, row-major (`rows * cols` cells).
    Tensor {
        title: String,
        /// The tensor shape, and how it is drawn (rank 1: one row; rank > 2:
        /// leading dims flattened into rows, said in `note`).
        shape: Vec<i64>,
        rows: usize,
        cols: usize,
        note: Option<String>,
        /// The legend (what a label means, what marks a broadcast copy).
        legend: String,
        cells: Vec<Cell>,
    },
    /// A table of a plan stage: one row per register or instruction, one
    /// column per lane.
    Table {
        title: String,
        row_labels: Vec<String>,
        col_labels: Vec<String>,
        cells: Vec<Vec<TableCell>>,
        note: Option<String>,
        stage: Option<StageTag>,
    },
    /// Lines of text (a stage's when `stage` says so).
    Text {
        title: String,
        lines: Vec<String>,
        stage: Option<StageTag>,
    },
}

/// A picture: a title, notes, and rows of panels drawn side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    pub title: String,
    pub rows: Vec<Vec<Panel>>,
}

/// Hue of lane `l` of warp `w` with `warps` warps: warps get distinct hue
/// bands, lanes spread within them (one warp: lanes over the whole wheel).
fn slot_colour(s: &Slot, warps: u32) -> (f64, f64) {
    let lane_hue = (s.lane as f64 * 137.508) % 360.0;
    if warps <= 1 {
        (lane_hue, 80.0)
    } else {
        let band = 360.0 / warps as f64;
        (
            s.warp as f64 * band + (s.lane as f64 / 32.0) * band * 0.85,
            70.0 + 15.0 * ((s.lane % 4) as f64 / 3.0),
        )
    }
}

fn bank_colour(bank: u32) -> (f64, f64) {
    ((bank as f64 * 137.508) % 360.0, 78.0)
}

/// Rows and columns a tensor of `shape` is drawn as, and the note for rank
/// other than 2.
pub fn grid_of(shape: &[i64]) -> (usize, usize, Option<String>) {
    match shape.len() {
        0 => (1, 1, None),
        1 => (
            1,
            shape[0] as usize,
            Some(format!(
                "1-D tensor of {} elements drawn as one row",
                shape[0]
            )),
        ),
        2 => (shape[0] as usize, shape[1] as usize, None),
        n => {
            let rows: i64 = shape[..n - 1].iter().product();
            (
                rows as usize,
                shape[n - 1] as usize,
                Some(format!(
                    "{n}-D tensor {shape:?}: dims 0..{} flattened into {rows} rows (row = row-major index over them), dim{} across",
                    n - 2,
                    n - 1
                )),
            )
        }
    }
}

fn dims(shape: &[i64]) -> String {
    shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

/// The tensor panel of a layout.
pub fn layout_panel(title: &str, l: &LinearLayout) -> Result<Panel, DrawError> {
    let h = Holders::of(l, title)?;
    let (rows, cols, note) = grid_of(&h.shape);
    let cells = h
        .slots
        .iter()
        .map(|v| match v.first() {
            None => Cell {
                label: "-".into(),
                tip: "held by no thread".into(),
                hue: 0.0,
                light: 100.0,
                copies: 0,
                mark: false,
            },
            Some(s) => {
                let (hue, light) = slot_colour(s, h.warps);
                let all: Vec<String> = v.iter().map(|x| h.label(x)).collect();
                let tip = if all.len() > 16 {
                    format!("{} ... ({} copies)", all[..16].join(" "), all.len())
                } else {
                    all.join(" ")
                };
                Cell {
                    label: h.label(s),
                    tip,
                    hue,
                    light,
                    copies: v.len(),
                    mark: false,
                }
            }
        })
        .collect();
    let cell = if h.blocks > 1 {
        "B{CTA}:W{warp}:L{lane}:R{register}"
    } else if h.warps > 1 {
        "W{warp}:L{lane}:R{register}"
    } else {
        "T{lane}:R{register}"
    };
    Ok(Panel::Tensor {
        title: format!(
            "{title}: {} tensor, {} warp(s), {} register(s) per thread",
            dims(&h.shape),
            h.warps,
            l.in_dim_size(REGISTER)
        ),
        shape: h.shape.clone(),
        rows,
        cols,
        note,
        legend: format!(
            "cell = {cell} of the first thread holding the element; *N = N copies (broadcast; all listed in the tooltip); colour = warp and lane"
        ),
        cells,
    })
}

/// A picture of one layout.
pub fn layout_picture(title: &str, l: &LinearLayout) -> Result<Picture, DrawError> {
    Ok(Picture {
        title: title.to_string(),
        rows: vec![vec![layout_panel("layout", l)?]],
    })
}

fn lane_cols() -> Vec<String> {
    (0..32).map(|l| format!("L{l}")).collect()
}

fn capped<T>(v: Vec<T>, what: &str) -> (Vec<T>, Option<String>) {
    let n = v.len();
    if n > MAX_TABLE_ROWS {
        let mut v = v;
        v.truncate(MAX_TABLE_ROWS);
        (
            v,
            Some(format!("first {MAX_TABLE_ROWS} of {n} {what} drawn")),
        )
    } else {
        (v, None)
    }
}

fn bank_of(access: &SmemAccess, lane: u32, warp: u32, offset: u32) -> u32 {
    let eb = (access.width / 8).max(1);
    ((access.addr.base(lane, warp) ^ offset) * eb / 4) % 32
}

fn access_desc(a: &SmemAccess) -> String {
    match a.instr {
        SmemInstr::Vector => format!(
            "{} x {}-bit vector ({} element(s) of {} bits)",
            a.insts.len(),
            a.bytes() * 8,
            a.elems(),
            a.width
        ),
        SmemInstr::Matrix { count, trans } => format!(
            "{} x .x{count}{} matrix access ({}-bit elements)",
            a.insts.len(),
            if trans { ".trans" } else { "" },
            a.width
        ),
    }
}

fn smem_table(i: usize, s: &Stage, verb: &str, a: &SmemAccess) -> Panel {
    let matrix = matches!(a.instr, SmemInstr::Matrix { .. });
    let rows: Vec<usize> = (0..a.insts.len()).collect();
    let (rows, note) = capped(rows, "instructions");
    let cells = rows
        .iter()
        .map(|&k| {
            (0..32)
                .map(|lane| {
                    let b = bank_of(a, lane, 0, a.insts[k].offset);
                    let (hue, light) = bank_colour(b);
                    TableCell {
                        label: format!("b{b}"),
                        hue,
                        light,
                        value: b,
                    }
                })
                .collect()
        })
        .collect();
    let dir = if verb == "SmemStore" {
        Dir::Store
    } else {
        Dir::Load
    };
    let wf: u64 = (0..a.insts.len()).map(|k| a.wavefronts(k, 0, dir)).sum();
    let min: u64 = (0..a.insts.len())
        .map(|k| a.min_wavefronts(k, 0, dir))
        .sum();
    Panel::Table {
        title: format!(
            "stage {i}: {verb} {}; warp 0, bank (4-byte word mod 32) of each lane's {}; {wf} wavefronts per warp (minimum {min}, {} bank conflicts)",
            access_desc(a),
            if matrix { "row address (lanes 8j..8j+7 address matrix j)" } else { "address" },
            wf - min.min(wf)
        ),
        row_labels: rows
            .iter()
            .map(|k| format!("#{k} +{}", a.insts[*k].offset))
            .collect(),
        col_labels: lane_cols(),
        cells,
        note,
        stage: Some(
            StageTag::new(i, s, Some("bank"))
                .with("count", a.insts.len())
                .with(
                    "instr",
                    match a.instr {
                        SmemInstr::Vector => format!("v{}", a.bytes() * 8),
                        SmemInstr::Matrix { count, trans } => {
                            format!("x{count}{}", if trans { ".trans" } else { "" })
                        }
                    },
                )
                .with("wavefronts", wf)
                .with("min-wavefronts", min),
        ),
    }
}

/// The panels of one stage.
fn stage_panels(i: usize, s: &Stage) -> Vec<Panel> {
    match s {
        Stage::RegRename { map } => {
            let moved: Vec<String> = map
                .iter()
                .enumerate()
                .filter(|(k, &m)| *k as u32 != m)
                .map(|(k, m)| format!("r{k}<-r{m}"))
                .collect();
            let mut line = if moved.is_empty() {
                format!("{} registers kept in place", map.len())
            } else if moved.len() > 48 {
                format!(
                    "{} ... ({} renamed of {})",
                    moved[..48].join(" "),
                    moved.len(),
                    map.len()
                )
            } else {
                moved.join(" ")
            };
            line.insert_str(0, "out[k] = in[map[k]]: ");
            vec![Panel::Text {
                title: format!("stage {i}: RegRename (free, compile time)"),
                lines: vec![line],
                stage: Some(
                    StageTag::new(i, s, None)
                        .with("count", 0)
                        .with("regs", map.len())
                        .with("renamed", moved.len()),
                ),
            }]
        }
        Stage::Select { entries } => {
            let rows: Vec<(usize, &synth::plan::SelEntry)> = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.if_set != e.if_clear)
                .collect();
            let n = rows.len();
            let (rows, note) = capped(rows, "selects");
            let cells = rows
                .iter()
                .map(|(_, e)| {
                    (0..32u32)
                        .map(|lane| {
                            let set = (lane & e.lane_mask).count_ones() % 2 == 1;
                            let r = if set { e.if_set } else { e.if_clear };
                            TableCell {
                                label: format!("r{r}"),
                                hue: if set { 28.0 } else { 210.0 },
                                light: if set { 75.0 } else { 88.0 },
                                value: r,
                            }
                        })
                        .collect()
                })
                .collect();
            vec![Panel::Table {
                title: format!(
                    "stage {i}: Select, {n} selp per thread; the register each lane takes (orange: popcount(lane & mask) odd)"
                ),
                row_labels: rows
                    .iter()
                    .map(|(k, e)| format!("r{k} mask {:05b}: r{}|r{}", e.lane_mask, e.if_clear, e.if_set))
                    .collect(),
                col_labels: lane_cols(),
                cells,
                note,
                stage: Some(StageTag::new(i, s, Some("reg")).with("count", n)),
            }]
        }
        Stage::Shuffle {
            mode,
            lane_map,
            entries,
        } => {
            let rows: Vec<(usize, &synth::plan::ShflEntry)> = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.arg.is_some())
                .collect();
            let n = rows.len();
            let (rows, note) = capped(rows, "shuffles");
            let src = |lane: u32, arg: u32| -> u32 {
                match mode {
                    ShflMode::Bfly => (lane ^ arg) & 31,
                    ShflMode::Idx => {
                        let base = lane_map
                            .iter()
                            .enumerate()
                            .filter(|(j, _)| lane >> j & 1 == 1)
                            .fold(0u32, |a, (_, &c)| a ^ c);
                        (base ^ arg) & 31
                    }
                    ShflMode::Up => lane.checked_sub(arg).unwrap_or(lane),
                    ShflMode::Down => {
                        if lane + arg < 32 {
                            lane + arg
                        } else {
                            lane
                        }
                    }
                }
            };
            let cells = rows
                .iter()
                .map(|(_, e)| {
                    (0..32u32)
                        .map(|lane| {
                            let s = src(lane, e.arg.unwrap_or(0));
                            TableCell {
                                label: s.to_string(),
                                hue: (s as f64 * 137.508) % 360.0,
                                light: if s == lane { 95.0 } else { 80.0 },
                                value: s,
                            }
                        })
                        .collect()
                })
                .collect();
            let m = match mode {
                ShflMode::Idx => "idx",
                ShflMode::Bfly => "bfly",
                ShflMode::Up => "up",
                ShflMode::Down => "down",
            };
            vec![Panel::Table {
                title: format!(
                    "stage {i}: Shuffle (shfl.sync.{m}), {n} per thread; the lane each lane reads"
                ),
                row_labels: rows
                    .iter()
                    .map(|(k, e)| format!("r{k} <- r{} arg {}", e.reg, e.arg.unwrap_or(0)))
                    .collect(),
                col_labels: lane_cols(),
                cells,
                note,
                stage: Some(
                    StageTag::new(i, s, Some("src-lane"))
                        .with("count", n)
                        .with("mode", m),
                ),
            }]
        }
        Stage::SmemStore { access } => vec![smem_table(i, s, "SmemStore", access)],
        Stage::SmemLoad { access } => vec![smem_table(i, s, "SmemLoad", access)],
        Stage::Barrier { scope } => vec![Panel::Text {
            title: format!("stage {i}: Barrier"),
            lines: vec![match scope {
                synth::plan::BarrierScope::Warp => {
                    "__syncwarp(): each warp reads only what it wrote".into()
                }
                synth::plan::BarrierScope::Cta => "__syncthreads()".into(),
                synth::plan::BarrierScope::Named { id, threads } => {
                    format!("bar.sync {id}, {threads}: the warp group's named barrier")
                }
            }],
            stage: Some(StageTag::new(i, s, None).with("count", 1).with(
                "scope",
                match scope {
                    synth::plan::BarrierScope::Warp => "warp",
                    synth::plan::BarrierScope::Cta => "cta",
                    synth::plan::BarrierScope::Named { .. } => "named",
                },
            )),
        }],
        Stage::Pack { width, groups } => vec![Panel::Text {
            title: format!(
                "stage {i}: Pack, {} element(s) of {width} bits per 32-bit word (free in the packed form)",
                32 / width.max(&1)
            ),
            lines: groups
                .iter()
                .enumerate()
                .map(|(w, g)| {
                    let regs: Vec<String> = g.iter().map(|r| format!("r{r}")).collect();
                    format!("w{w} = [{}] (slot 0 first)", regs.join(", "))
                })
                .collect(),
            stage: Some(
                StageTag::new(i, s, None)
                    .with("count", 0)
                    .with("width", width)
                    .with("words", groups.len()),
            ),
        }],
        Stage::BytePerm { entries } => {
            let rows: Vec<(usize, &synth::plan::PermEntry)> = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| !e.is_copy())
                .collect();
            let n = rows.len();
            let (rows, note) = capped(rows, "byte permutes");
            let cells = rows
                .iter()
                .map(|(_, e)| {
                    (0..32u32)
                        .map(|lane| {
                            let sel = e.selector_for(lane);
                            TableCell {
                                label: format!("{sel:04x}"),
                                hue: ((sel & 0xffff) as f64 * 0.618_034 * 360.0) % 360.0,
                                light: if e.lane_independent() { 92.0 } else { 80.0 },
                                value: sel,
                            }
                        })
                        .collect()
                })
                .collect();
            vec![Panel::Table {
                title: format!(
                    "stage {i}: BytePerm, {n} prmt per thread; the selector each lane uses (nibble q picks byte q of {{b, a}}: 0-3 from a, 4-7 from b)"
                ),
                row_labels: rows
                    .iter()
                    .map(|(k, e)| format!("w{k} = prmt(w{}, w{})", e.a, e.b))
                    .collect(),
                col_labels: lane_cols(),
                cells,
                note,
                stage: Some(StageTag::new(i, s, Some("selector")).with("count", n)),
            }]
        }
        Stage::Unpack { width, map } => vec![Panel::Text {
            title: format!("stage {i}: Unpack {width}-bit elements from words (shifts, no prmt)"),
            lines: map
                .iter()
                .enumerate()
                .map(|(r, (w, slot))| format!("r{r} = w{w} slot {slot}"))
                .collect(),
            stage: Some(
                StageTag::new(i, s, None)
                    .with("count", 0)
                    .with("width", width)
                    .with("regs", map.len()),
            ),
        }],
        Stage::ClusterStore { store } => vec![Panel::Text {
            title: format!(
                "stage {i}: ClusterStore: mapa + st.shared::cluster of {}-bit elements into the CTAs that hold them",
                store.width
            ),
            lines: store
                .insts
                .iter()
                .map(|x| {
                    format!(
                        "r{:?} -> CTA (lane/warp/rank part) ^ {}, offset (lane/warp/rank part) ^ {}",
                        x.regs, x.cta, x.offset
                    )
                })
                .collect(),
            stage: Some(
                StageTag::new(i, s, None)
                    .with("count", store.insts.len())
                    .with("width", store.width),
            ),
        }],
        Stage::ClusterLoad { load } => vec![Panel::Text {
            title: format!(
                "stage {i}: ClusterLoad: mapa + ld.shared::cluster of {}-bit elements from a CTA that holds them (ld.shared where the own CTA does)",
                load.width
            ),
            lines: load
                .insts
                .iter()
                .enumerate()
                .map(|(k, x)| {
                    format!(
                        "{} elements for r{:?} <- CTA (lane/warp/rank part) ^ {}, offset (lane/warp/rank part) ^ {}{}",
                        x.regs.len(),
                        x.regs,
                        x.cta,
                        x.offset,
                        if load.local(k) { " (own CTA: ld.shared)" } else { "" }
                    )
                })
                .collect(),
            stage: Some(
                StageTag::new(i, s, None)
                    .with("count", load.insts.len())
                    .with("width", load.width),
            ),
        }],
        Stage::ClusterBarrier => vec![Panel::Text {
            title: format!(
                "stage {i}: ClusterBarrier (barrier.cluster.arrive.release + wait.acquire)"
            ),
            lines: vec![],
            stage: Some(StageTag::new(i, s, None).with("count", 1)),
        }],
    }
}

/// For every tensor element of CTA 0, the bank (4-byte word mod 32) of the
/// shared-memory word its first store writes it to: the plan run on tags as
/// the simulator does, up to its last store. `None` when the plan stores
/// nothing or cannot be followed.
pub fn store_banks(chosen: &Chosen) -> Option<Vec<Option<u32>>> {
    let an: &Analysis = &chosen.analysis;
    let plan = &chosen.plan;
    if !plan
        .stages
        .iter()
        .any(|s| matches!(s, Stage::SmemStore { .. }))
    {
        return None;
    }
    let warps = 1u32 << an.src.hw.warp;
    let mut regs: Vec<Vec<u64>> = (0..warps * 32)
        .map(|t| {
            (0..an.src_regs())
                .map(|r| an.src.tag(r as u64, (t % 32) as u64, (t / 32) as u64, 0))
                .collect()
        })
        .collect();
    let mut banks = vec![None; 1usize << an.tensor_bits];
    let mut smem: std::collections::HashMap<u32, u64> = Default::default();
    for s in &plan.stages {
        match s {
            Stage::RegRename { map } => {
                for v in regs.iter_mut() {
                    *v = map
                        .iter()
                        .map(|&m| v.get(m as usize).copied())
                        .collect::<Option<_>>()?;
                }
            }
            Stage::Select { entries } => {
                for (t, v) in regs.iter_mut().enumerate() {
                    let lane = (t % 32) as u32;
                    *v = entries
                        .iter()
                        .map(|e| {
                            let set = (lane & e.lane_mask).count_ones() % 2 == 1;
                            v.get((if set { e.if_set } else { e.if_clear }) as usize)
                                .copied()
                        })
                        .collect::<Option<_>>()?;
                }
            }
            Stage::Shuffle {
                mode,
                lane_map,
                entries,
            } => {
                let old = regs.clone();
                for (t, v) in regs.iter_mut().enumerate() {
                    let (w, lane) = (t as u32 / 32, t as u32 % 32);
                    *v = entries
                        .iter()
                        .map(|e| {
                            let src = match (mode, e.arg) {
                                (_, None) => lane,
                                (ShflMode::Bfly, Some(c)) => (lane ^ c) & 31,
                                (ShflMode::Idx, Some(c)) => {
                                    lane_map
                                        .iter()
                                        .enumerate()
                                        .filter(|(j, _)| lane >> j & 1 == 1)
                                        .fold(0u32, |a, (_, &col)| a ^ col)
                                        ^ c & 31
                                }
                                (ShflMode::Up, Some(d)) => lane.checked_sub(d).unwrap_or(lane),
                                (ShflMode::Down, Some(d)) => {
                                    if lane + d < 32 {
                                        lane + d
                                    } else {
                                        lane
                                    }
                                }
                            };
                            old.get((w * 32 + (src & 31)) as usize)?
                                .get(e.reg as usize)
                                .copied()
                        })
                        .collect::<Option<_>>()?;
                }
            }
            Stage::SmemStore { access } => {
                let eb = (access.width / 8).max(1);
                for w in 0..warps {
                    for (k, inst) in access.insts.iter().enumerate() {
                        for (lane, e, off) in access.element_slots(k, w).ok()? {
                            let r = *inst.regs.get(e as usize)?;
                            let tag = *regs.get((w * 32 + lane) as usize)?.get(r as usize)?;
                            smem.insert(off, tag);
                            if let Some(b) = banks.get_mut(tag as usize) {
                                b.get_or_insert(off * eb / 4 % 32);
                            }
                        }
                    }
                }
            }
            Stage::SmemLoad { access } => {
                for w in 0..warps {
                    let mut add: Vec<Vec<u64>> = vec![Vec::new(); 32];
                    for k in 0..access.insts.len() {
                        let mut per: Vec<Vec<(u32, u64)>> = vec![Vec::new(); 32];
                        for (lane, e, off) in access.element_slots(k, w).ok()? {
                            per[lane as usize]
                                .push((e, smem.get(&off).copied().unwrap_or(u64::MAX)));
                        }
                        for (lane, mut p) in per.into_iter().enumerate() {
                            p.sort();
                            add[lane].extend(p.into_iter().map(|x| x.1));
                        }
                    }
                    for (lane, a) in add.into_iter().enumerate() {
                        regs[(w * 32) as usize + lane].extend(a);
                    }
                }
            }
            Stage::Barrier { .. } => {}
            _ => return None,
        }
    }
    Some(banks)
}

/// A picture of a conversion and its plan: both layouts side by side, then
/// one row per stage, and for shared-memory plans the tensor coloured by the
/// bank each element is stored to.
pub fn conversion_picture(conv: &Conversion, chosen: &Chosen) -> Result<Picture, DrawError> {
    let src = layout_panel("source", &conv.src)?;
    let dst = layout_panel("destination", &conv.dst)?;
    let p = &chosen.plan;
    let mut rows = vec![vec![src, dst]];
    rows.push(vec![Panel::Text {
        title: format!(
            "plan: {} ({}), m = {}, {} per thread",
            p.kind.as_str(),
            p.strategy,
            p.m,
            chosen.cost
        ),
        lines: {
            let mut l = vec![format!(
                "{} source register(s) -> {} destination register(s); stages: {}",
                p.src_regs,
                p.dst_regs,
                if p.stages.is_empty() {
                    "none".to_string()
                } else {
                    p.stages.iter().map(|s| s.name()).collect::<Vec<_>>().join(" -> ")
                }
            )];
            if p.smem_elems > 0 {
                l.push(format!(
                    "shared memory: {} elements, {} round(s); {} wavefronts per CTA (minimum {}), {} bank conflicts",
                    p.smem_elems, p.rounds, chosen.sim.smem_wavefronts, chosen.sim.min_wavefronts, chosen.sim.bank_conflicts
                ));
            }
            l.extend(p.notes.iter().map(|n| format!("note: {n}")));
            l
        },
        stage: None,
    }]);
    for (i, s) in p.stages.iter().enumerate() {
        rows.push(stage_panels(i, s));
    }
    if let Some(banks) = store_banks(chosen) {
        let shape = conv.shape.clone();
        let (r, c, note) = grid_of(&shape);
        let cells = banks
            .iter()
            .map(|b| match b {
                Some(b) => {
                    let (hue, light) = bank_colour(*b);
                    Cell {
                        label: format!("b{b}"),
                        tip: format!("bank {b}"),
                        hue,
                        light,
                        copies: 1,
                        mark: false,
                    }
                }
                None => Cell {
                    label: "-".into(),
                    tip: "not stored by CTA 0".into(),
                    hue: 0.0,
                    light: 100.0,
                    copies: 1,
                    mark: false,
                },
            })
            .collect();
        rows.push(vec![Panel::Tensor {
            title: format!(
                "shared memory: the bank each element is stored to ({} tensor)",
                dims(&shape)
            ),
            shape,
            rows: r,
            cols: c,
            note,
            legend: "cell = b{bank}: 4-byte word of its shared address mod 32 (first store)".into(),
            cells,
        }]);
    }
    Ok(Picture {
        title: format!(
            "{}: {} {} tensor, {} warp(s)",
            conv.name,
            dims(&conv.shape),
            conv.elem.name,
            conv.num_warps
        ),
        rows,
    })
}

fn coord_label(c: &[i32]) -> String {
    c.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// A picture of a CuTe shared-memory layout (`warpforge draw --smem`): the
/// shared memory as rows of 128 bytes (one 4-byte word per cell, the 32
/// banks across), each word labelled with the first tensor coordinate it
/// holds and coloured by bank; the tensor coloured by the bank of each
/// element. With `access` (a register layout over the same tile and its
/// [`synth::smem::analyse_access`] report): that layout, the bank of every
/// lane's address per instruction (conflicting lanes marked `!`), and, in
/// both memory pictures, the words of the instruction with the most
/// conflicts (warp 0) drawn saturated, those its conflicting lanes access
/// marked. Errors: a layout whose offsets cannot be formed for
/// `elem_bits`, or a tile or memory of more than [`MAX_ELEMENTS`] cells.
pub fn smem_picture(
    title: &str,
    smem: &synth::smem::SmemLayout,
    shape: &[i64],
    elem_bits: u32,
    access: Option<(&LinearLayout, &synth::smem::AccessReport)>,
) -> Result<Picture, DrawError> {
    let err = |detail: String| DrawError::Layout {
        what: "--smem".into(),
        detail,
    };
    let offsets = smem.offsets(elem_bits).map_err(err)?;
    smem.check_tile(shape).map_err(err)?;
    let size = smem.size();
    if size > MAX_ELEMENTS {
        return Err(DrawError::TooLarge {
            what: "--smem".into(),
            elements: size,
            max: MAX_ELEMENTS,
        });
    }
    let eb = (elem_bits / 8).max(1) as u64;
    let offset_of = |idx: u64| -> u64 {
        offsets
            .iter()
            .enumerate()
            .filter(|(j, _)| idx >> j & 1 == 1)
            .fold(0, |a, (_, &o)| a ^ o)
    };
    let span_elems = offsets.iter().fold(0u64, |a, &o| a | o) + 1;
    let words = (span_elems * eb).div_ceil(4);
    if words > MAX_ELEMENTS {
        return Err(DrawError::TooLarge {
            what: "--smem (4-byte words)".into(),
            elements: words,
            max: MAX_ELEMENTS,
        });
    }
    // per word, the tile indices it holds
    let mut held: Vec<Vec<u64>> = vec![Vec::new(); words as usize];
    let mut tile_off = vec![0u64; size as usize];
    for idx in 0..size {
        let o = offset_of(idx);
        tile_off[idx as usize] = o;
        for w in (o * eb / 4)..((o + 1) * eb).div_ceil(4) {
            if let Some(h) = held.get_mut(w as usize) {
                h.push(idx);
            }
        }
    }
    // the instruction drawn: its words, and those of conflicting lanes
    let mut touched: std::collections::HashMap<u64, Vec<u32>> = Default::default();
    let mut conflicted = std::collections::HashSet::new();
    let mut rows = Vec::new();
    let mut shown = None;
    if let Some((l, r)) = access {
        let k = r.worst();
        shown = Some(k);
        let conflict: std::collections::HashSet<u32> =
            r.instrs[k].conflict_lanes.iter().copied().collect();
        if let Ok(slots) = r.access.element_slots(k, 0) {
            for (lane, _, off) in slots {
                let off = off as u64;
                for w in (off * eb / 4)..((off + 1) * eb).div_ceil(4) {
                    touched.entry(w).or_default().push(lane);
                    if conflict.contains(&lane) {
                        conflicted.insert(w);
                    }
                }
            }
        }
        rows.push(vec![layout_panel("access", l)?]);
        let (wf, min, bc) = r.totals();
        let mut lines = vec![format!(
            "{} x {} per thread ({} x {elem_bits}-bit elements each), {} warp(s); per warp: {wf} wavefronts (minimum {min}), {bc} bank conflicts",
            r.instrs.len(),
            r.instr_name(),
            r.vector_elems,
            r.warps
        )];
        lines.push(format!(
            "drawn below: instruction #{k} of warp 0 (the first with the most conflicts): its words saturated, those of conflicting lanes marked !"
        ));
        rows.push(vec![Panel::Text {
            title: "access".into(),
            lines,
            stage: None,
        }]);
        let idx: Vec<usize> = (0..r.instrs.len()).collect();
        let (idx, note) = capped(idx, "instructions");
        let cells = idx
            .iter()
            .map(|&k| {
                let c: std::collections::HashSet<u32> =
                    r.instrs[k].conflict_lanes.iter().copied().collect();
                (0..32)
                    .map(|lane| {
                        let b = bank_of(&r.access, lane, 0, r.access.insts[k].offset);
                        let (hue, _) = bank_colour(b);
                        let bad = c.contains(&lane);
                        TableCell {
                            label: format!("b{b}{}", if bad { "!" } else { "" }),
                            hue,
                            light: if bad { 62.0 } else { 85.0 },
                            value: b,
                        }
                    })
                    .collect()
            })
            .collect();
        rows.push(vec![Panel::Table {
            title: format!(
                "{}: bank (4-byte word mod 32) of each lane's address, warp 0; ! = a lane whose bank serves another word in its phase",
                r.instr_name()
            ),
            row_labels: idx
                .iter()
                .map(|&k| {
                    let i = &r.instrs[k];
                    format!(
                        "#{k} +{}: {} wf (min {})",
                        i.offset, i.wavefronts, i.min_wavefronts
                    )
                })
                .collect(),
            col_labels: lane_cols(),
            cells,
            note,
            stage: Some(StageTag {
                index: 0,
                kind: "SmemAccess",
                value: Some("bank"),
                attrs: vec![
                    ("count", r.instrs.len().to_string()),
                    ("instr", format!("v{}", r.access.bytes() * 8)),
                    ("wavefronts", wf.to_string()),
                    ("min-wavefronts", min.to_string()),
                    ("bank-conflicts", bc.to_string()),
                ],
            }),
        }]);
    }
    let light = |w: u64| {
        if shown.is_none() {
            78.0
        } else if touched.contains_key(&w) {
            68.0
        } else {
            93.0
        }
    };
    let cols = words.min(32) as usize;
    let mem_cells = (0..words)
        .map(|w| {
            let bank = (w % 32) as u32;
            let (hue, _) = bank_colour(bank);
            let h = &held[w as usize];
            let coords: Vec<String> = h
                .iter()
                .map(|&i| format!("({})", coord_label(&synth::smem::coords_of(i, shape))))
                .collect();
            let mut tip = format!(
                "word {w} (bytes {}..{}), bank {bank}: {}",
                w * 4,
                w * 4 + 3,
                if coords.is_empty() {
                    "no element".to_string()
                } else {
                    coords.join(" ")
                }
            );
            if let Some(lanes) = touched.get(&w) {
                let mut l = lanes.clone();
                l.sort_unstable();
                l.dedup();
                tip += &format!(
                    "; instruction #{} lanes {}",
                    shown.unwrap_or(0),
                    synth::smem::lane_ranges(&l)
                );
            }
            Cell {
                label: h.first().map_or("-".into(), |&i| {
                    coord_label(&synth::smem::coords_of(i, shape))
                }),
                tip,
                hue,
                light: if h.is_empty() { 100.0 } else { light(w) },
                copies: 1,
                mark: conflicted.contains(&w),
            }
        })
        .collect();
    let sw = smem
        .element_swizzle(elem_bits)
        .ok()
        .flatten()
        .map_or("no swizzle".to_string(), |s| {
            format!("{s} on element offsets")
        });
    rows.push(vec![Panel::Tensor {
        title: format!(
            "shared memory: {} bytes, 128 a row (32 banks of 4 bytes across); {sw}",
            words * 4
        ),
        shape: vec![words.div_ceil(cols as u64) as i64, cols as i64],
        rows: words.div_ceil(cols as u64) as usize,
        cols,
        note: None,
        legend: "cell = a 4-byte word: the first tensor coordinate it holds (all in the tooltip); column = bank; colour = bank".into(),
        cells: mem_cells,
    }]);
    // the tensor, row-major, coloured by bank
    let (r, c, note) = grid_of(shape);
    let rank = shape.len();
    let tensor_cells = (0..size)
        .map(|rm| {
            // row-major position -> coordinate -> column-major index
            let mut coord = vec![0i32; rank];
            let mut rest = rm;
            for d in (0..rank).rev() {
                let n = shape[d].max(1) as u64;
                coord[d] = (rest % n) as i32;
                rest /= n;
            }
            let mut idx = 0u64;
            let mut at = 0u32;
            for d in 0..rank {
                idx |= (coord[d] as u64) << at;
                at += (shape[d].max(1) as u64).trailing_zeros();
            }
            let o = tile_off[idx as usize];
            let w = o * eb / 4;
            let bank = (w % 32) as u32;
            let (hue, _) = bank_colour(bank);
            Cell {
                label: format!("b{bank}"),
                tip: format!("({}): offset {o}, bank {bank}", coord_label(&coord)),
                hue,
                light: light(w),
                copies: 1,
                mark: conflicted.contains(&w),
            }
        })
        .collect();
    rows.push(vec![Panel::Tensor {
        title: format!("the {} tensor: bank of each element", dims(shape)),
        shape: shape.to_vec(),
        rows: r,
        cols: c,
        note,
        legend: "cell = b{bank} of the element's shared word; ! = accessed by a conflicting lane"
            .into(),
        cells: tensor_cells,
    }]);
    Ok(Picture {
        title: title.to_string(),
        rows,
    })
}
