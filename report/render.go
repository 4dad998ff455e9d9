package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The size of one plot.
const (
	plotWidth  = 6 * vg.Inch
	plotHeight = 4 * vg.Inch
	pngDPI     = 96
)

// plot draws the figure: one line per series, the legend top left, both
// axes from zero.
func (f *Figure) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Min, p.Y.Min = 0, 0
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	maxY := 0.0
	// the bands first, so that no band hides a line
	bands := make([]*plotter.Polygon, len(f.Series))
	for i, s := range f.Series {
		if len(s.Band) == 0 {
			continue
		}
		poly, err := bandPolygon(s.Band)
		if err != nil {
			return nil, fmt.Errorf("report: %s, %s: %w", f.Title, s.Label, err)
		}
		poly.Color = translucent(plotutil.Color(i))
		poly.LineStyle.Width = 0
		for _, iv := range s.Band {
			maxY = math.Max(maxY, iv.High)
		}
		p.Add(poly)
		bands[i] = poly
	}
	for i, s := range f.Series {
		xys := make(plotter.XYs, len(s.Points))
		for j, pt := range s.Points {
			xys[j].X, xys[j].Y = pt.X, pt.Y
			maxY = math.Max(maxY, pt.Y)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("report: %s, %s: %w", f.Title, s.Label, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		if bands[i] != nil {
			p.Legend.Add(s.Label, bands[i], l)
		} else {
			p.Legend.Add(s.Label, l)
		}
	}
	if maxY == 0 {
		p.Y.Max = 1 // an all-zero curve still gets an axis
	}
	return p, nil
}

// bandPolygon is the outline of an interval band: along the upper bounds
// left to right, then back along the lower bounds.
func bandPolygon(band []Interval) (*plotter.Polygon, error) {
	ring := make(plotter.XYs, 0, 2*len(band))
	for _, iv := range band {
		ring = append(ring, plotter.XY{X: iv.X, Y: iv.High})
	}
	for i := len(band) - 1; i >= 0; i-- {
		ring = append(ring, plotter.XY{X: band[i].X, Y: band[i].Low})
	}
	return plotter.NewPolygon(ring)
}

// translucent is c at a quarter of its opacity, for a band under a line of
// colour c.
func translucent(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
}

// plainTicks are gonum's default ticks labelled with the shortest
// decimal form (2500, not 2500.00).
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}

// SVG renders the figure alone as an SVG document.
func (f *Figure) SVG() ([]byte, error) {
	p, err := f.plot()
	if err != nil {
		return nil, err
	}
	c := vgsvg.New(plotWidth, plotHeight)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return b.Bytes(), nil
}

// tile draws every figure on c, two per row.
func (r *Report) tile(c vg.CanvasSizer) error {
	if len(r.Figures) == 0 {
		return errors.New("report: no plots")
	}
	cols := min(2, len(r.Figures))
	rows := (len(r.Figures) + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for i, f := range r.Figures {
		p, err := f.plot()
		if err != nil {
			return err
		}
		plots[i/cols][i%cols] = p
	}
	pad := vg.Points(8)
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: pad, PadY: pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	canvases := plot.Align(plots, t, draw.New(c))
	for i := range plots {
		for j, p := range plots[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	return nil
}

// size is the image size of the tiled plots.
func (r *Report) size() (vg.Length, vg.Length) {
	cols := vg.Length(min(2, max(1, len(r.Figures))))
	rows := vg.Length((len(r.Figures) + 1) / 2)
	if len(r.Figures) == 1 {
		rows = 1
	}
	return cols * plotWidth, max(1, rows) * plotHeight
}

// WriteSVG writes every plot in one SVG image.
func (r *Report) WriteSVG(w io.Writer) error {
	c := vgsvg.New(r.size())
	if err := r.tile(c); err != nil {
		return err
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WritePNG writes every plot in one PNG image.
func (r *Report) WritePNG(w io.Writer) error {
	width, height := r.size()
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(pngDPI))
	if err := r.tile(c); err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// htmlFigure is a figure as the page shows it.
type htmlFigure struct {
	*Figure
	SVG template.HTML
	// Header and Rows are the plotted data, shown under the plot.
	Header []string
	Rows   [][]string
}

// dataTable lists every point of f; the bounds of an interval at a point
// of a banded series follow in two more columns.
func (f *Figure) dataTable() (header []string, rows [][]string) {
	header = []string{"run", f.XLabel, f.YLabel}
	banded := false
	for _, s := range f.Series {
		banded = banded || len(s.Band) > 0
	}
	if banded {
		header = append(header, "interval low", "interval high")
	}
	for _, s := range f.Series {
		at := map[float64]Interval{}
		for _, iv := range s.Band {
			at[iv.X] = iv
		}
		for _, pt := range s.Points {
			row := []string{s.Label, ftoa(pt.X), ftoa(pt.Y)}
			if banded {
				row = append(row, "", "")
				if iv, ok := at[pt.X]; ok {
					row[3], row[4] = ftoa(iv.Low), ftoa(iv.High)
				}
			}
			rows = append(rows, row)
		}
	}
	return header, rows
}

// WriteHTML writes a self-contained HTML page: the tables, then every
// plot as inline SVG with its data under it.
func (r *Report) WriteHTML(w io.Writer) error {
	var figs []htmlFigure
	for _, f := range r.Figures {
		svg, err := f.SVG()
		if err != nil {
			return err
		}
		// inline SVG needs no XML declaration
		if i := bytes.Index(svg, []byte("<svg")); i > 0 {
			svg = svg[i:]
		}
		hf := htmlFigure{Figure: f, SVG: template.HTML(svg)} // drawn by vgsvg, which escapes its text
		hf.Header, hf.Rows = f.dataTable()
		figs = append(figs, hf)
	}
	err := pageTemplate.Execute(w, map[string]any{
		"Title": r.Title, "Inputs": r.Inputs, "Tables": r.Tables, "Figures": figs,
		"Generated": time.Now().UTC().Format(time.RFC3339),
	})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(32em, 1fr)); gap: 1em; }
figure { margin: 0; }
figure svg { width: 100%; height: auto; }
details table { font-size: 0.8em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>Generated {{.Generated}} from:</p>
<ul>{{range .Inputs}}<li><code>{{.}}</code></li>{{end}}</ul>
{{range .Tables}}<h2>{{.Title}}</h2>
<table id="table-{{.Key}}">
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}<h2>Plots</h2>
<div class="figures">
{{range .Figures}}<figure id="{{.Key}}" title="{{.Title}}">
{{.SVG}}
<details><summary>data</summary>
<table>
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
</details>
</figure>
{{end}}</div>
</body>
</html>
`))
