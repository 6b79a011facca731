//! Text over the picture: the 8×8 public-domain glyphs of `font8x8`, drawn into the window's
//! `0RGB` pixels on a darkened band so they read over any background.

use font8x8::UnicodeFonts;

/// Height of a line of text at `scale`, in pixels (glyph and spacing).
pub fn line_height(scale: u32) -> u32 {
    10 * scale
}

/// Width of `text` at `scale`, in pixels.
pub fn width(text: &str, scale: u32) -> u32 {
    text.chars().count() as u32 * 8 * scale
}

/// Darkens the rectangle `(x, y, w, h)` of `pixels` (`stride` pixels a row) to half.
pub fn shade(pixels: &mut [u32], stride: u32, height: u32, (x, y, w, h): (u32, u32, u32, u32)) {
    for row in y..(y + h).min(height) {
        let start = (row * stride + x.min(stride)) as usize;
        let end = (row * stride + (x + w).min(stride)) as usize;
        for p in &mut pixels[start..end] {
            *p = (*p >> 1) & 0x007f_7f7f;
        }
    }
}

/// Draws `text` with its top-left corner at `(x, y)`, `scale` pixels a glyph pixel, in
/// `color` (`0RGB`); characters without a glyph are drawn as `?`; what falls outside the
/// picture is clipped.
pub fn draw(
    pixels: &mut [u32],
    stride: u32,
    height: u32,
    (x, y): (u32, u32),
    text: &str,
    scale: u32,
    color: u32,
) {
    let scale = scale.max(1);
    for (i, ch) in text.chars().enumerate() {
        let glyph = font8x8::BASIC_FONTS
            .get(ch)
            .or_else(|| font8x8::BASIC_FONTS.get('?'))
            .unwrap_or([0; 8]);
        let gx = x + i as u32 * 8 * scale;
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8u32 {
                if bits & (1 << col) == 0 {
                    continue;
                }
                for dy in 0..scale {
                    let py = y + row as u32 * scale + dy;
                    if py >= height {
                        continue;
                    }
                    for dx in 0..scale {
                        let px = gx + col * scale + dx;
                        if px < stride {
                            pixels[(py * stride + px) as usize] = color;
                        }
                    }
                }
            }
        }
    }
}

/// Splits `items` into lines of at most `max_width` pixels at `scale`, joined by `sep`.
pub fn wrap(items: &[&str], sep: &str, max_width: u32, scale: u32) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for item in items {
        let candidate = if line.is_empty() {
            (*item).to_owned()
        } else {
            format!("{line}{sep}{item}")
        };
        if !line.is_empty() && width(&candidate, scale) > max_width {
            lines.push(std::mem::take(&mut line));
            line = (*item).to_owned();
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_glyph_pixels_and_clips() {
        let (w, h) = (40u32, 12u32);
        let mut px = vec![0u32; (w * h) as usize];
        draw(&mut px, w, h, (0, 0), "I", 1, 0xffffff);
        let lit = px.iter().filter(|&&p| p == 0xffffff).count();
        assert!(lit > 6, "an I has a stem: {lit}");
        // Off the picture: nothing drawn, no panic.
        draw(&mut px, w, h, (38, 10), "WWWW", 3, 0x123456);
        draw(&mut px, w, h, (1000, 1000), "é", 2, 0x123456);
        shade(&mut px, w, h, (30, 5, 100, 100));
        assert_eq!(px[(6 * w + 31) as usize] & 0x808080, 0);
    }

    #[test]
    fn wraps_items_to_the_width() {
        let lines = wrap(&["space play", "P physics", "B bones"], " | ", 8 * 22, 1);
        assert_eq!(lines, vec!["space play | P physics", "B bones"]);
        assert!(lines.iter().all(|l| width(l, 1) <= 8 * 22));
    }
}
