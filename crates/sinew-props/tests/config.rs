//! The `world.ik3d` table: parsing and every error naming its kind and field.

mod common;

use sinew_props::{PropsConfig, PropsError, PropsRig};

fn err(json: &str) -> String {
    PropsConfig::from_json(json).unwrap_err().to_string()
}

#[test]
fn spec_example_parses() {
    let c = PropsConfig::from_json(common::CONFIG).unwrap();
    let k = &c.kinds["xbot"];
    let a = k.anchor.as_ref().unwrap();
    assert_eq!(a.point.as_deref(), Some("handle"));
    assert_eq!(a.turn, [0.0, 10.0, 0.0]);
    assert_eq!(k.limbs[0].bones[1], "RightForeArm");
    // Also through plain serde.
    let via_serde: PropsConfig = serde_json::from_str(common::CONFIG).unwrap();
    via_serde.check().unwrap();
    assert_eq!(via_serde.kinds, c.kinds);
}

#[test]
fn every_shape_error_names_kind_and_field() {
    let limb = r#"{ "bones": ["A", "B", "C"], "prop": "p", "target": "t", "pole": [1, 0, 0] }"#;
    let cases: Vec<(String, &str)> = vec![
        ("[1]".into(), "ik3d: must be an object"),
        (r#"{"kinds": 3}"#.into(), "kinds: must be an object"),
        (r#"{"kindz": {}}"#.into(), "kindz: unknown field"),
        (r#"{"kinds": {"xbot": 1}}"#.into(), "kinds.xbot: must be an object"),
        (r#"{"kinds": {"xbot": {"arms": []}}}"#.into(), "kinds.xbot.arms: unknown field"),
        (r#"{"kinds": {"xbot": {"anchor": 5}}}"#.into(), "kinds.xbot.anchor: must be an object"),
        (r#"{"kinds": {"xbot": {"anchor": {"bone": "B"}}}}"#.into(), "kinds.xbot.anchor.prop: is required"),
        (r#"{"kinds": {"xbot": {"anchor": {"prop": "p"}}}}"#.into(), "kinds.xbot.anchor.bone: is required"),
        (r#"{"kinds": {"xbot": {"anchor": {"prop": " ", "bone": "B"}}}}"#.into(), "kinds.xbot.anchor.prop: must be a non-blank name"),
        (r#"{"kinds": {"xbot": {"anchor": {"prop": "p", "bone": 7}}}}"#.into(), "kinds.xbot.anchor.bone: must be a string"),
        (r#"{"kinds": {"xbot": {"anchor": {"prop": "p", "bone": "B", "at": [1, 2]}}}}"#.into(), "kinds.xbot.anchor.at: must be an array of three numbers"),
        (r#"{"kinds": {"xbot": {"anchor": {"prop": "p", "bone": "B", "turn": [1, "x", 2]}}}}"#.into(), "kinds.xbot.anchor.turn: must be an array of three numbers"),
        (r#"{"kinds": {"xbot": {"anchor": {"prop": "p", "bone": "B", "point": 1}}}}"#.into(), "kinds.xbot.anchor.point: must be a string"),
        (r#"{"kinds": {"xbot": {"anchor": {"prop": "p", "bone": "B", "spin": 1}}}}"#.into(), "kinds.xbot.anchor.spin: unknown field"),
        (r#"{"kinds": {"xbot": {"limbs": {}}}}"#.into(), "kinds.xbot.limbs: must be an array"),
        (format!(r#"{{"kinds": {{"xbot": {{"limbs": [{limb}, 4]}}}}}}"#), "kinds.xbot.limbs[1]: must be an object"),
        (r#"{"kinds": {"xbot": {"limbs": [{"bones": ["A", "B"], "prop": "p", "target": "t", "pole": [1, 0, 0]}]}}}"#.into(), "kinds.xbot.limbs[0].bones: must be an array of three bone suffixes"),
        (r#"{"kinds": {"xbot": {"limbs": [{"bones": ["A", "B", ""], "prop": "p", "target": "t", "pole": [1, 0, 0]}]}}}"#.into(), "kinds.xbot.limbs[0].bones[2]: must be a non-blank bone suffix"),
        (r#"{"kinds": {"xbot": {"limbs": [{"prop": "p", "target": "t", "pole": [1, 0, 0]}]}}}"#.into(), "kinds.xbot.limbs[0].bones: is required"),
        (r#"{"kinds": {"xbot": {"limbs": [{"bones": ["A", "B", "C"], "target": "t", "pole": [1, 0, 0]}]}}}"#.into(), "kinds.xbot.limbs[0].prop: is required"),
        (r#"{"kinds": {"xbot": {"limbs": [{"bones": ["A", "B", "C"], "prop": "p", "pole": [1, 0, 0]}]}}}"#.into(), "kinds.xbot.limbs[0].target: is required"),
        (r#"{"kinds": {"xbot": {"limbs": [{"bones": ["A", "B", "C"], "prop": "p", "target": "t"}]}}}"#.into(), "kinds.xbot.limbs[0].pole: is required"),
        (format!(r#"{{"kinds": {{"xbot": {{"limbs": [{limb}, {{"bones": ["A", "B", "C"], "prop": "p", "target": "t", "pole": [0, 0, 0]}}]}}}}}}"#), "kinds.xbot.limbs[1].pole: must be a non-zero direction"),
        (r#"{"kinds": {"xbot": {"limbs": [{"bones": ["A", "B", "C"], "prop": "p", "target": "t", "pole": [1, 0, 0], "hand": 1}]}}}"#.into(), "kinds.xbot.limbs[0].hand: unknown field"),
    ];
    for (json, want) in cases {
        let got = err(&json);
        assert!(
            got.starts_with(want),
            "{json}\n  got:  {got}\n  want: {want}"
        );
    }
    assert!(matches!(
        PropsConfig::from_json("{"),
        Err(PropsError::Json(_))
    ));
    match PropsConfig::from_json(
        r#"{"kinds": {"xbot": {"limbs": [{"bones": ["A", "B", "C"], "prop": "p", "target": "t", "pole": [0, 0, 0]}]}}}"#,
    ) {
        Err(PropsError::Config { kind, path, .. }) => {
            assert_eq!(kind, "xbot");
            assert_eq!(path, "kinds.xbot.limbs[0].pole");
        }
        other => panic!("{other:?}"),
    }
}

/// ik3d-props-and-limbs.md, `.mods : { body, limbs? }`: "body is required". A table read from
/// JSON without `mods`, or whose `mods` names no `body`, is refused with one line naming
/// `mods.body`; a `mods` out of shape is refused naming its field. Reading the table without
/// this rule accepts all of them.
#[test]
fn a_table_without_mods_body_is_refused() {
    let kinds = r#""kinds": {"xbot": {}}"#;
    for json in [
        format!("{{{kinds}}}"),
        format!(r#"{{"mods": {{"limbs": "interact"}}, {kinds}}}"#),
        "{}".to_owned(),
    ] {
        let e = PropsConfig::from_json(&json).unwrap_err();
        assert_eq!(e.to_string(), "mods.body: is required", "{json}");
        assert!(matches!(&e, PropsError::Config { path, .. } if path == "mods.body"));
    }
    for (json, want) in [
        (r#"{"mods": 3}"#, "mods: must be an object"),
        (
            r#"{"mods": {"body": " "}}"#,
            "mods.body: must be a non-blank name",
        ),
        (r#"{"mods": {"body": 1}}"#, "mods.body: must be a string"),
        (
            r#"{"mods": {"body": "anim", "limbs": 2}}"#,
            "mods.limbs: must be a string",
        ),
        (
            r#"{"mods": {"body": "anim", "hands": "x"}}"#,
            "mods.hands: unknown field (expected body, limbs)",
        ),
    ] {
        assert_eq!(err(json), want, "{json}");
    }
    let c = PropsConfig::from_json(&format!(r#"{{"mods": {{"body": "anim"}}, {kinds}}}"#)).unwrap();
    assert_eq!(c.mods, Some(serde_json::json!({ "body": "anim" })));
    PropsConfig::from_json(common::CONFIG).unwrap();
}

#[test]
fn check_covers_configs_built_in_code_and_changes() {
    let mut c = (*common::config()).clone();
    c.kinds.get_mut("xbot").unwrap().anchor.as_mut().unwrap().at = [f32::NAN, 0.0, 0.0];
    assert_eq!(
        c.check().unwrap_err().to_string(),
        "kinds.xbot.anchor.at: must be three finite numbers"
    );
    let mut c2 = (*common::config()).clone();
    c2.kinds.get_mut("xbot").unwrap().limbs[0].pole = [0.0; 3];
    assert_eq!(
        c2.check().unwrap_err().to_string(),
        "kinds.xbot.limbs[0].pole: must be a non-zero direction"
    );
    // Checked whenever it changes: the rig refuses it and keeps the old one.
    let mut rig = PropsRig::new(common::config(), Some("xbot")).unwrap();
    assert!(rig.set_config(std::sync::Arc::new(c2)).is_err());
    assert_eq!(rig.config().kinds["xbot"].limbs[0].pole, [-1.0, -1.0, 0.0]);
    assert!(PropsRig::new(std::sync::Arc::new(c), None).is_err());
}

/// ik3d-props-and-limbs.md, `.mods`: "body is required", and `check( numbers )` "checks a
/// world.ik3d table": the rule holds for a table built in code or read through serde too, not
/// only for one read by `from_json`. A table without `mods` (the default, or serde's without
/// the key) and one whose `mods` names no `body` are refused by `check`, by a rig and by a
/// config change (the old table stays); the built-in humanoid rifle table and
/// `PropsConfig::new` comply. A `check` that skipped an absent `mods` accepts the first three.
#[test]
fn check_requires_mods_body_for_tables_built_in_code() {
    let mut no_mods = (*common::config()).clone();
    no_mods.mods = None;
    let serde_no_mods: PropsConfig = serde_json::from_str(r#"{"kinds": {"xbot": {}}}"#).unwrap();
    for c in [no_mods.clone(), PropsConfig::default(), serde_no_mods] {
        let e = c.check().unwrap_err();
        assert_eq!(e.to_string(), "mods.body: is required", "{c:?}");
        assert!(PropsRig::new(std::sync::Arc::new(c), None).is_err());
    }
    let mut no_body = (*common::config()).clone();
    no_body.mods = Some(serde_json::json!({ "limbs": "interact" }));
    assert_eq!(
        no_body.check().unwrap_err().to_string(),
        "mods.body: is required"
    );
    let mut rig = PropsRig::new(common::config(), Some("xbot")).unwrap();
    assert!(rig.set_config(std::sync::Arc::new(no_mods)).is_err());
    assert!(rig.config().mods.is_some(), "the old table stays");
    // Entries out of shape are still named first, as `from_json` reports them.
    let mut bad = PropsConfig::default();
    bad.kinds.insert(" ".into(), Default::default());
    assert_eq!(
        bad.check().unwrap_err().to_string(),
        "kinds: kind names must not be blank"
    );
    // Tables built in code that name their body mod comply.
    let rifle = sinew_humanoid::rifle::humanoid_rifle_config();
    rifle.check().unwrap();
    assert_eq!(
        rifle.mods,
        Some(serde_json::json!({ "body": sinew_humanoid::rifle::BODY_MOD }))
    );
    PropsConfig::new("anim").check().unwrap();
    assert_eq!(
        PropsConfig::new("anim").mods,
        Some(serde_json::json!({ "body": "anim" }))
    );
}
