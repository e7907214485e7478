package study

import (
	"fmt"
	"html"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// numShapes is how many marker shapes there are: circle, square, triangle,
// diamond.
const numShapes = 4

// svgCanvas writes SVG 1.1; the viewer renders the text.
type svgCanvas struct {
	b strings.Builder
}

func newSVG(w, h int) *svgCanvas {
	c := &svgCanvas{}
	fmt.Fprintf(&c.b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"+
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"+
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", w, h, w, h)
	return c
}

func svgColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func (c *svgCanvas) line(pts []xy, col color.RGBA, width float64, dash []float64) {
	var p strings.Builder
	for _, q := range pts {
		fmt.Fprintf(&p, "%.1f,%.1f ", q.x, q.y)
	}
	extra := ""
	if len(dash) > 0 {
		d := make([]string, len(dash))
		for i, v := range dash {
			d[i] = fmt.Sprint(v)
		}
		extra = " stroke-dasharray=\"" + strings.Join(d, ",") + "\""
	}
	fmt.Fprintf(&c.b, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%g\"%s/>\n",
		strings.TrimSpace(p.String()), svgColor(col), width, extra)
}

func (c *svgCanvas) marker(p xy, shape int, col color.RGBA) {
	const r = 4
	fill := svgColor(col)
	switch shape {
	case 0:
		fmt.Fprintf(&c.b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"/>\n", p.x, p.y, r, fill)
	case 1:
		fmt.Fprintf(&c.b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", p.x-r, p.y-r, 2*r, 2*r, fill)
	case 2:
		fmt.Fprintf(&c.b, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>\n", p.x, p.y-r, p.x+r, p.y+r, p.x-r, p.y+r, fill)
	default:
		fmt.Fprintf(&c.b, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>\n", p.x, p.y-r, p.x+r, p.y, p.x, p.y+r, p.x-r, p.y, fill)
	}
}

func (c *svgCanvas) text(p xy, s string, align int, vertical bool) {
	anchor := [3]string{"start", "middle", "end"}[align+1]
	rot := ""
	if vertical {
		rot = fmt.Sprintf(" transform=\"rotate(-90 %.1f %.1f)\"", p.x, p.y)
	}
	fmt.Fprintf(&c.b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>%s</text>\n", p.x, p.y, anchor, rot, html.EscapeString(s))
}

func (c *svgCanvas) writeTo(w io.Writer) error {
	_, err := io.WriteString(w, c.b.String()+"</svg>\n")
	return err
}

// pngCanvas draws on an RGBA image with a 7×13 bitmap font.
type pngCanvas struct {
	img *image.RGBA
}

func newPNG(w, h int) *pngCanvas {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	return &pngCanvas{img: img}
}

// dot paints a filled disc of radius r at p.
func (c *pngCanvas) dot(p xy, r float64, col color.RGBA) {
	for y := int(math.Floor(p.y - r)); y <= int(math.Ceil(p.y+r)); y++ {
		for x := int(math.Floor(p.x - r)); x <= int(math.Ceil(p.x+r)); x++ {
			if dx, dy := float64(x)+0.5-p.x, float64(y)+0.5-p.y; dx*dx+dy*dy <= r*r+0.25 {
				c.img.SetRGBA(x, y, col)
			}
		}
	}
}

// line strokes the polyline by stamping discs every half pixel, skipping
// the gaps of the dash pattern (which runs on along the whole polyline).
func (c *pngCanvas) line(pts []xy, col color.RGBA, width float64, dash []float64) {
	r := math.Max(width/2, 0.5)
	pattern := 0.0
	for _, d := range dash {
		pattern += d
	}
	along := 0.0
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		n := math.Hypot(b.x-a.x, b.y-a.y)
		for s := 0.0; s <= n; s += 0.5 {
			if pattern == 0 || inDash(math.Mod(along+s, pattern), dash) {
				t := 0.0
				if n > 0 {
					t = s / n
				}
				c.dot(xy{a.x + t*(b.x-a.x), a.y + t*(b.y-a.y)}, r, col)
			}
		}
		along += n
	}
}

// inDash reports whether offset o of a dash pattern is drawn (even entries
// are dashes, odd ones gaps).
func inDash(o float64, dash []float64) bool {
	for i, d := range dash {
		if o < d {
			return i%2 == 0
		}
		o -= d
	}
	return true
}

func (c *pngCanvas) marker(p xy, shape int, col color.RGBA) {
	const r = 4.0
	for y := -r; y <= r; y++ {
		for x := -r; x <= r; x++ {
			in := false
			switch shape {
			case 0:
				in = x*x+y*y <= r*r
			case 1:
				in = true
			case 2:
				in = math.Abs(x) <= (y+r)/2
			default:
				in = math.Abs(x)+math.Abs(y) <= r
			}
			if in {
				c.img.SetRGBA(int(p.x+x), int(p.y+y), col)
			}
		}
	}
}

func (c *pngCanvas) text(p xy, s string, align int, vertical bool) {
	face := basicfont.Face7x13
	adv := font.MeasureString(face, s).Round()
	if !vertical {
		x := int(p.x) - (align+1)*adv/2
		d := &font.Drawer{Dst: c.img, Src: image.Black, Face: face, Dot: fixed.P(x, int(p.y))}
		d.DrawString(s)
		return
	}
	// Vertical: draw on a scratch image and copy it turned a quarter left.
	tmp := image.NewRGBA(image.Rect(0, 0, adv, 13))
	d := &font.Drawer{Dst: tmp, Src: image.Black, Face: face, Dot: fixed.P(0, 10)}
	d.DrawString(s)
	x0, y0 := int(p.x)-6, int(p.y)+adv/2
	for y := range 13 {
		for x := range adv {
			if _, _, _, a := tmp.At(x, y).RGBA(); a > 0 {
				c.img.Set(x0+y, y0-x, tmp.At(x, y))
			}
		}
	}
}

func (c *pngCanvas) writeTo(w io.Writer) error { return png.Encode(w, c.img) }
