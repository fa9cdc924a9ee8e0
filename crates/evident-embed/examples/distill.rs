//! Distils the default static embedder from a fetched BERT-family model, as
//! `evident` does on first need: `cargo run -p evident-embed --example distill
//! -- MODEL_DIR` writes `MODEL_DIR-static` (nothing to do when it is there).
//! `scripts/test` runs it so that no test waits for it.
fn main() {
    let teacher = std::path::PathBuf::from(std::env::args().nth(1).expect("MODEL_DIR"));
    let out = evident_embed::static_dir_for(&teacher);
    if let Err(error) = evident_embed::distill_once(&teacher, &out, &mut |line| eprintln!("{line}"))
    {
        eprintln!("distill: {error}");
        std::process::exit(1);
    }
    println!("{}", out.display());
}
