//! Planner speed on real conversions: parse + analyse + enumerate + simulate
//! every candidate + choose (`plan_conversion`), and emission of the chosen
//! plans. Run with `make bench`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use synth::plan::StrategyChoice;
use synth::search::{plan_conversion, Weights};

fn planner(c: &mut Criterion) {
    let mut g = c.benchmark_group("plan_conversion");
    for file in [
        "pairs.mlir",
        "ttgir/attn_vfp8e4nv_sm90.ttgir",
        "ttgir/matmul_fp16_sm80.ttgir",
    ] {
        let convs = bench::conversions(file).expect("corpus loads");
        g.bench_with_input(BenchmarkId::from_parameter(file), &convs, |b, convs| {
            b.iter(|| {
                for conv in convs {
                    plan_conversion(conv, StrategyChoice::Auto, &Weights::default())
                        .expect("plans");
                }
            })
        });
    }
    g.finish();
    let convs = bench::conversions("ttgir/attn_vfp8e4nv_sm90.ttgir").expect("corpus loads");
    let chosen: Vec<_> = convs
        .iter()
        .map(|c| plan_conversion(c, StrategyChoice::Auto, &Weights::default()).unwrap())
        .collect();
    c.bench_function("emit_header/attn_vfp8e4nv_sm90", |b| {
        b.iter(|| {
            let hs: Vec<_> = convs
                .iter()
                .zip(&chosen)
                .map(|(c, ch)| kernels::emit_helper(c, ch).unwrap())
                .collect();
            kernels::emit_header(&hs, "bench").unwrap()
        })
    });
}

criterion_group!(benches, planner);
criterion_main!(benches);
