//! The order Bullet's solver meets a step's rows in, which Gauss–Seidel's result depends on:
//! Bullet groups bodies into simulation islands (a union–find over the dynamic bodies that
//! touch or share a joint) and sorts its joints and contact manifolds by island with its own
//! quicksort, which is not stable: rows of one island come out permuted (two of them swap, for
//! instance), and a symmetric rig (a tie between two chest bodies) breaks its symmetry the way
//! that permutation says.

/// Reusable scratch for [`SolveOrder::compute`].
#[derive(Debug, Default)]
pub(crate) struct SolveOrder {
    parent: Vec<u32>,
    island: Vec<i32>,
    keys: Vec<i32>,
    /// The joints' order: indices into the joint list.
    pub joints: Vec<u32>,
    /// The contacts' order: indices into the contact list.
    pub contacts: Vec<u32>,
}

impl SolveOrder {
    fn find(&mut self, mut x: u32) -> u32 {
        // Path halving, as Bullet's union–find compresses its paths.
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    /// Bullet's union: the first set hangs under the second's root.
    fn unite(&mut self, p: usize, q: usize) {
        let (i, j) = (self.find(p as u32), self.find(q as u32));
        if i != j {
            self.parent[i as usize] = j;
        }
    }

    /// The order of `joints` (body pairs, authored order) and `contacts` (body pairs, found
    /// order) for `bodies` bodies of which `dynamic` says which move: islands from the contact
    /// pairs, then the joints, between moving bodies; each row keyed by its first moving body's
    /// island; both lists sorted by key with Bullet's quicksort.
    pub fn compute(
        &mut self,
        bodies: usize,
        dynamic: impl Fn(usize) -> bool,
        joints: impl Iterator<Item = (usize, usize)> + Clone,
        contacts: impl Iterator<Item = (usize, usize)> + Clone,
    ) {
        self.parent.clear();
        self.parent.extend(0..bodies as u32);
        for (a, b) in contacts.clone().chain(joints.clone()) {
            if a < bodies && b < bodies && dynamic(a) && dynamic(b) {
                self.unite(a, b);
            }
        }
        self.island.clear();
        for b in 0..bodies {
            let id = if dynamic(b) {
                self.find(b as u32) as i32
            } else {
                -1
            };
            self.island.push(id);
        }
        let island = &self.island;
        let key = |(a, b): (usize, usize)| {
            let of = |x: usize| island.get(x).copied().unwrap_or(-1);
            if of(a) >= 0 {
                of(a)
            } else {
                of(b)
            }
        };
        self.keys.clear();
        self.keys.extend(joints.map(key));
        self.joints.clear();
        self.joints.extend(0..self.keys.len() as u32);
        bullet_quick_sort(&mut self.joints, &self.keys);
        self.keys.clear();
        self.keys.extend(contacts.map(key));
        self.contacts.clear();
        self.contacts.extend(0..self.keys.len() as u32);
        bullet_quick_sort(&mut self.contacts, &self.keys);
    }
}

/// Sorts `items` by `keys[item]` the way Bullet's array quicksort does (Hoare partition around
/// the middle element, equal keys swapped across it), so equal keys end up permuted as in
/// Bullet.
fn bullet_quick_sort(items: &mut [u32], keys: &[i32]) {
    if items.len() > 1 {
        sort_range(items, keys, 0, items.len() as isize - 1);
    }
}

fn sort_range(items: &mut [u32], keys: &[i32], lo: isize, hi: isize) {
    let key = |i: u32| keys[i as usize];
    let (mut i, mut j) = (lo, hi);
    let pivot = key(items[((lo + hi) / 2) as usize]);
    loop {
        while key(items[i as usize]) < pivot {
            i += 1;
        }
        while pivot < key(items[j as usize]) {
            j -= 1;
        }
        if i <= j {
            items.swap(i as usize, j as usize);
            i += 1;
            j -= 1;
        }
        if i > j {
            break;
        }
    }
    if lo < j {
        sort_range(items, keys, lo, j);
    }
    if i < hi {
        sort_range(items, keys, i, hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_come_out_permuted_as_in_bullet() {
        let sorted = |n: u32| {
            let mut v: Vec<u32> = (0..n).collect();
            bullet_quick_sort(&mut v, &vec![0; n as usize]);
            v
        };
        assert_eq!(sorted(2), [1, 0]);
        assert_eq!(sorted(3), [2, 1, 0]);
        assert_eq!(sorted(4), [2, 3, 0, 1]);
        let mut v: Vec<u32> = (0..6).collect();
        bullet_quick_sort(&mut v, &[3, 1, 2, 1, 0, 2]);
        let keys: Vec<i32> = v.iter().map(|&i| [3, 1, 2, 1, 0, 2][i as usize]).collect();
        assert_eq!(keys, [0, 1, 1, 2, 2, 3]);
    }

    #[test]
    fn islands_follow_joints_and_contacts_between_moving_bodies() {
        let mut order = SolveOrder::default();
        // Bodies 0 (kinematic), 1–2 jointed, 3–4 touching, 5 alone.
        let joints = [(0usize, 1usize), (1, 2)];
        let contacts = [(3usize, 4usize), (0, 5)];
        order.compute(
            6,
            |b| b != 0,
            joints.iter().copied(),
            contacts.iter().copied(),
        );
        assert_eq!(order.island[0], -1);
        assert_eq!(order.island[1], order.island[2]);
        assert_eq!(order.island[3], order.island[4]);
        assert_ne!(order.island[1], order.island[3]);
        assert_ne!(order.island[5], order.island[3]);
        assert_eq!(order.joints.len(), 2);
        assert_eq!(order.contacts.len(), 2);
    }
}
