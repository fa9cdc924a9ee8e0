//! Embedding throughput of the built-in embedder: `cargo run --release -p
//! evident-embed --example throughput -- MODEL_DIR [WORDS] [COUNT]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("MODEL_DIR"));
    let words: usize = args.next().map_or(40, |w| w.parse().unwrap());
    let count: usize = args.next().map_or(64, |c| c.parse().unwrap());
    let embedder = evident_embed::LocalEmbedder::load(&dir).unwrap();
    let texts: Vec<String> = (0..count)
        .map(|i| {
            (0..words)
                .map(|w| format!("word{} ", (i * 7 + w) % 50))
                .collect()
        })
        .collect();
    let started = std::time::Instant::now();
    embedder.embed(&texts).unwrap();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{count} texts of {words} words: {seconds:.2} s, {:.1} texts/s",
        count as f64 / seconds
    );
}
