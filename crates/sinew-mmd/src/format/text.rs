//! Text codecs: UTF-16LE / UTF-8 length-prefixed strings (PMX) and Shift-JIS
//! fixed-size NUL-terminated fields (PMD, VMD).
//!
//! Decoding is lossy where the reference readers are (unpaired surrogates and
//! malformed bytes become U+FFFD), so a file that MMD and babylon-mmd open also
//! opens here. A Shift-JIS field cut in the middle of a two-byte character (VMD
//! bone names are often cut at 15 bytes) drops the dangling lead byte instead of
//! producing U+FFFD, so that writing the name back gives the same bytes.

use encoding_rs::SHIFT_JIS;

/// Decodes UTF-16LE. `None` when the byte length is odd.
pub(crate) fn decode_utf16le(bytes: &[u8]) -> Option<String> {
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    let units = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]));
    let mut s = String::with_capacity(bytes.len() / 2);
    s.extend(char::decode_utf16(units).map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER)));
    Some(s)
}

/// Decodes UTF-8, replacing malformed sequences.
pub(crate) fn decode_utf8(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Decodes a fixed-size Shift-JIS field up to its first NUL.
pub(crate) fn decode_sjis_field(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    let bytes = field.get(..end).unwrap_or_default();
    if bytes.is_ascii() {
        // Fast path: every ASCII byte is the same character in Shift-JIS
        // (encoding_rs maps 0x5C and 0x7E to U+005C / U+007E as WHATWG does).
        return bytes.iter().map(|&b| b as char).collect();
    }
    if let Some(s) = SHIFT_JIS.decode_without_bom_handling_and_without_replacement(bytes) {
        return s.into_owned();
    }
    // A field cut inside a two-byte character: drop the dangling lead byte.
    if let Some(head) = bytes.get(..bytes.len().saturating_sub(1)) {
        if let Some(s) = SHIFT_JIS.decode_without_bom_handling_and_without_replacement(head) {
            return s.into_owned();
        }
    }
    SHIFT_JIS.decode_without_bom_handling(bytes).0.into_owned()
}

/// Encodes `s` as Shift-JIS into a field of `N` bytes, NUL-padded. Text longer
/// than the field is cut at a character boundary; characters Shift-JIS cannot
/// hold become `?`.
pub(crate) fn encode_sjis_field<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    let mut len = 0;
    let mut buf = [0u8; 4];
    for ch in s.chars() {
        let piece = ch.encode_utf8(&mut buf);
        let (enc, _, had_errors) = SHIFT_JIS.encode(piece);
        let bytes: &[u8] = if had_errors { b"?" } else { &enc };
        if len + bytes.len() > N {
            break;
        }
        if let Some(dst) = out.get_mut(len..len + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
        len += bytes.len();
    }
    out
}

/// Encodes UTF-16LE, appending to `out`.
pub(crate) fn encode_utf16le(s: &str, out: &mut Vec<u8>) {
    for u in s.encode_utf16() {
        out.extend_from_slice(&u.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_roundtrip_and_odd_length() {
        let mut v = Vec::new();
        encode_utf16le("センター", &mut v);
        assert_eq!(decode_utf16le(&v).as_deref(), Some("センター"));
        assert_eq!(decode_utf16le(&[0x41]), None);
        // Unpaired surrogate becomes U+FFFD.
        assert_eq!(decode_utf16le(&[0x00, 0xD8]).as_deref(), Some("\u{FFFD}"));
    }

    #[test]
    fn sjis_field_roundtrip() {
        let f: [u8; 20] = encode_sjis_field("右足ＩＫ");
        assert_eq!(decode_sjis_field(&f), "右足ＩＫ");
        // 8 two-byte characters do not fit in 15 bytes: 7 are kept.
        let f: [u8; 15] = encode_sjis_field("あいうえおかきく");
        assert_eq!(decode_sjis_field(&f), "あいうえおかき");
    }

    #[test]
    fn sjis_field_cut_inside_a_character() {
        let full: [u8; 20] = encode_sjis_field("左ひざ");
        // Cut after the lead byte of the last character.
        let cut = &full[..5];
        assert_eq!(decode_sjis_field(cut), "左ひ");
        // Garbage after the NUL is ignored.
        let mut g = [0xFDu8; 10];
        g[0] = b'a';
        g[1] = 0;
        assert_eq!(decode_sjis_field(&g), "a");
    }
}
