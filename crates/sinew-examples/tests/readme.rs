//! The README's library snippet is `examples/readme.rs`, line for line: CI runs that example
//! (`cargo run -p sinew-examples --example readme` from the workspace root, where the snippet's
//! relative asset path points) and rustdoc compiles the README's Rust block
//! (`sinew-character`'s `README` doctest).

#[test]
fn the_readme_snippet_is_the_example() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/readme.rs"))
            .unwrap();
    let blocks: Vec<&str> = readme
        .split("```rust no_run\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert_eq!(blocks.len(), 1, "one Rust block in the README");
    assert_eq!(blocks[0], example, "README snippet vs examples/readme.rs");
    assert!(
        example.lines().count() <= 20,
        "the snippet is at most 20 lines"
    );
}
