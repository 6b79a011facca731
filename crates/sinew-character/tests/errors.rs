//! Errors are one line naming the file or value, numbers as written.

use sinew_character::{Character, CharacterError, CharacterModel};

#[test]
fn huge_numbers_print_as_written() {
    let skeleton = sinew::SkeletonBuilder::new()
        .bone("root", sinew::Parent::Root, sinew::Transform::IDENTITY)
        .build()
        .unwrap();
    let model = std::sync::Arc::new(CharacterModel::from_model(sinew::Model::new(skeleton)));
    let mut c = Character::new(&model);
    let e = c.advance(-3.4e38).unwrap_err().to_string();
    assert_eq!(e, "dt must be finite and >= 0, got -3.4e38");
    let e = c.update(f32::NAN, 0.0).unwrap_err().to_string();
    assert_eq!(e, "time must be finite, got NaN");
    assert!(matches!(
        c.set_morph_weight(0, Some(1.0)),
        Err(CharacterError::Unknown { .. })
    ));
}

#[test]
fn a_missing_file_and_a_truncated_model_are_one_line_naming_the_file() {
    let e = CharacterModel::load("/nonexistent/model.pmx")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/nonexistent/model.pmx: cannot read:"), "{e}");
    assert_eq!(e.lines().count(), 1);
    let dir = std::env::temp_dir().join(format!("sinew-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cut.pmx");
    std::fs::write(&path, b"PMX \x00\x00\x00\x40\x08").unwrap();
    let e = CharacterModel::load(&path).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: PMX", path.display())), "{e}");
    assert_eq!(e.lines().count(), 1);
    let e = CharacterModel::load(&dir).unwrap_err().to_string();
    assert!(
        e.contains("not a regular file") || e.contains("cannot read"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
