//! Embedding throughput of the built-in embedders: `cargo run --release -p
//! evident-embed --example throughput -- MODEL_DIR [WORDS] [COUNT]`. A static
//! table's directory (`…-static`, see the `distill` example) is timed as one.
fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("MODEL_DIR"));
    let words: usize = args.next().map_or(40, |w| w.parse().unwrap());
    let count: usize = args.next().map_or(64, |c| c.parse().unwrap());
    let texts: Vec<String> = (0..count)
        .map(|i| {
            (0..words)
                .map(|w| format!("word{} ", (i * 7 + w) % 50))
                .collect()
        })
        .collect();
    let started = std::time::Instant::now();
    if evident_embed::is_static_model(&dir) {
        let model = evident_embed::StaticEmbedder::load(&dir).unwrap();
        let started = std::time::Instant::now();
        model.embed(&texts).unwrap();
        report(count, words, started);
    } else {
        let model = evident_embed::LocalEmbedder::load(&dir).unwrap();
        let started = std::time::Instant::now();
        model.embed(&texts).unwrap();
        report(count, words, started);
    }
    eprintln!("with loading: {:.2} s", started.elapsed().as_secs_f64());
}

fn report(count: usize, words: usize, started: std::time::Instant) {
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{count} texts of {words} words: {seconds:.2} s, {:.1} texts/s",
        count as f64 / seconds
    );
}
