package evals

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The chart is hand-written SVG: two small line panels need no plotting
// library, and SVG diffs well, scales, and renders on GitHub.

// palette is colour-blind safe (Okabe–Ito).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442"}

type series struct {
	name   string
	dashed bool
	ys     []float64 // NaN-free; one per x
}

// kSweep returns the scripted configurations that differ from the
// baseline in k alone, ordered by k.
func kSweep(s Summary, configs []Config) []ConfigSummary {
	byName := map[string]Config{}
	for _, c := range configs {
		byName[c.Name] = c
	}
	var out []ConfigSummary
	for _, cs := range s.Configs {
		c, ok := byName[cs.Config]
		if !ok || cs.Agent != "scripted" {
			continue
		}
		b := Baseline()
		b.Name, b.K = c.Name, c.K
		c.Order = cmp.Or(c.Order, byRelevance)
		if c == b {
			out = append(out, cs)
		}
	}
	slices.SortFunc(out, func(a, b ConfigSummary) int { return a.K - b.K })
	return out
}

// WriteChart draws recall_all by category against k, and context tokens
// against k, from the k sweep (a single point without --matrix).
func WriteChart(w io.Writer, s Summary, configs []Config) error {
	sweep := kSweep(s, configs)
	if len(sweep) == 0 && len(s.Configs) > 0 {
		sweep = s.Configs[:1]
	}
	var xs []float64
	for _, c := range sweep {
		xs = append(xs, float64(c.K))
	}
	var recall []series
	for _, cat := range Categories(s.Benchmark) {
		sr := series{name: cat}
		for _, c := range sweep {
			v := c.ByCategory[cat].RecallAll
			if v == nil {
				sr.ys = nil
				break
			}
			sr.ys = append(sr.ys, 100**v)
		}
		if sr.ys != nil {
			recall = append(recall, sr)
		}
	}
	overall := series{name: "overall", dashed: true}
	mean := series{name: "mean"}
	p95 := series{name: "p95", dashed: true}
	for _, c := range sweep {
		if c.Retrieval.RecallAll != nil {
			overall.ys = append(overall.ys, 100**c.Retrieval.RecallAll)
		}
		mean.ys = append(mean.ys, c.ContextTokens.Mean)
		p95.ys = append(p95.ys, c.ContextTokens.P95)
	}
	if len(overall.ys) == len(xs) {
		recall = append(recall, overall)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="380" viewBox="0 0 1000 380" font-family="sans-serif" font-size="12">`+"\n")
	b.WriteString(`<rect width="1000" height="380" fill="white"/>` + "\n")
	panel(&b, 60, 40, 380, 280, fmt.Sprintf("%s: recall_all (%s level) by category vs k", s.Benchmark, s.Level), "k", "% of questions", xs, recall, 100)
	panel(&b, 640, 40, 280, 280, "context tokens (o200k) vs k", "k", "tokens per question", xs, []series{mean, p95}, 0)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// panel draws one line chart with its axes and legend at (x0, y0).
// yMax 0 means fit the data.
func panel(b *strings.Builder, x0, y0, w, h float64, title, xLabel, yLabel string, xs []float64, ss []series, yMax float64) {
	if yMax == 0 {
		var all [][]float64
		for _, s := range ss {
			all = append(all, s.ys)
		}
		yMax = fitMax(all)
	}
	xMin, xMax := 0.0, 1.0
	if len(xs) > 0 {
		xMin, xMax = slices.Min(xs), slices.Max(xs)
	}
	if xMax == xMin {
		xMin, xMax = xMin-1, xMax+1
	}
	px := func(x float64) float64 { return x0 + (x-xMin)/(xMax-xMin)*w }
	py := frame(b, x0, y0, w, h, title, yLabel, yMax)
	for _, x := range xs {
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle">%g</text>`+"\n", px(x), y0+h+16, x)
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x0+w/2, y0+h+34, esc(xLabel))
	for i, s := range ss {
		col := palette[i%len(palette)]
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		var pts []string
		for j, y := range s.ys {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(xs[j]), py(y)))
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(xs[j]), py(y), col)
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), col, dash)
		ly := y0 + 14 + float64(i)*16
		fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"%s/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			x0+w+12, ly-4, x0+w+32, ly-4, col, dash, x0+w+36, ly, esc(s.name))
	}
}

// frame draws a panel's title, its horizontal grid (five lines, 0 to
// yMax), its axes and its y label, and returns the panel's y scale.
func frame(b *strings.Builder, x0, y0, w, h float64, title, yLabel string, yMax float64) (py func(float64) float64) {
	py = func(y float64) float64 { return y0 + h - y/yMax*h }
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" font-size="14" font-weight="bold">%s</text>`+"\n", x0, y0-16, esc(title))
	for i := 0; i <= 4; i++ {
		y := yMax * float64(i) / 4
		fmt.Fprintf(b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ddd"/><text x="%.0f" y="%.1f" text-anchor="end">%g</text>`+"\n",
			x0, py(y), x0+w, py(y), x0-6, py(y)+4, y)
	}
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/>`+"\n", x0, y0+h, x0+w, y0+h)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/>`+"\n", x0, y0, x0, y0+h)
	fmt.Fprintf(b, `<text transform="translate(%.0f %.0f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", x0-42, y0+h/2, esc(yLabel))
	return py
}

// fitMax is the top of a y axis that fits every value.
func fitMax(values [][]float64) float64 {
	top := 0.0
	for _, vs := range values {
		for _, v := range vs {
			top = max(top, v)
		}
	}
	return niceCeil(top)
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := 1.0
	for p*10 < v {
		p *= 10
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
