//! Unit tests of the cursor search.

use super::*;

#[test]
fn locate_forward_backward_and_far() {
    let times = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
    assert_eq!(locate(&times, -1.0, 0), 0);
    assert_eq!(locate(&times, 0.0, 0), 1);
    assert_eq!(locate(&times, 0.5, 1), 1);
    assert_eq!(locate(&times, 1.5, 1), 2);
    assert_eq!(locate(&times, 8.5, 1), 9);
    assert_eq!(locate(&times, 9.5, 2), 10);
    assert_eq!(locate(&times, 0.5, 10), 1);
    assert_eq!(locate(&times, -3.0, 7), 0);
}
