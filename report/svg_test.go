package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// svgPaths parses an SVG document (checking it is well-formed XML with an
// svg root) and returns the vertices of every path made of straight
// segments only.
func svgPaths(t *testing.T, svg []byte) [][]Point {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var paths [][]Point
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == "" {
			root = se.Name.Local
		}
		if se.Name.Local != "path" {
			continue
		}
		for _, a := range se.Attr {
			if a.Name.Local == "d" {
				if pts, ok := parsePathData(a.Value); ok {
					paths = append(paths, pts)
				}
			}
		}
	}
	if root != "svg" {
		t.Fatalf("SVG root element %q", root)
	}
	return paths
}

// parsePathData reads "Mx,yLx,y…", closed or not ("…Z": a filled
// polygon); ok is false for paths with curves or arcs (glyphs, circles).
func parsePathData(d string) ([]Point, bool) {
	d = strings.TrimSuffix(d, "Z")
	var pts []Point
	for _, seg := range strings.FieldsFunc(d, func(r rune) bool { return r == 'M' || r == 'L' }) {
		x, y, ok := strings.Cut(seg, ",")
		if !ok {
			return nil, false
		}
		fx, err1 := strconv.ParseFloat(x, 64)
		fy, err2 := strconv.ParseFloat(y, 64)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		pts = append(pts, Point{fx, fy})
	}
	return pts, len(pts) > 0 && strings.HasPrefix(d, "M")
}

// affine reports whether the canvas points are the data points under one
// map x' = a + b·x, y' = c + d·y (b, d > 0: the axes are linear and point
// up and right in the canvas's own coordinates).
func affine(data, canvas []Point) error {
	if len(data) != len(canvas) {
		return fmt.Errorf("%d points drawn for %d", len(canvas), len(data))
	}
	get := []func(Point) float64{func(p Point) float64 { return p.X }, func(p Point) float64 { return p.Y }}
	for axis, v := range get {
		lo, hi := 0, 0
		for i := range data {
			if v(data[i]) < v(data[lo]) {
				lo = i
			}
			if v(data[i]) > v(data[hi]) {
				hi = i
			}
		}
		if v(data[hi]) == v(data[lo]) {
			continue // a flat coordinate: nothing to scale
		}
		b := (v(canvas[hi]) - v(canvas[lo])) / (v(data[hi]) - v(data[lo]))
		a := v(canvas[lo]) - b*v(data[lo])
		if b <= 0 {
			return fmt.Errorf("axis %d decreasing", axis)
		}
		for i := range data {
			if want := a + b*v(data[i]); math.Abs(want-v(canvas[i])) > 0.05 {
				return fmt.Errorf("axis %d, point %d: %v drawn at %.3f, the scale puts it at %.3f", axis, i, data[i], v(canvas[i]), want)
			}
		}
	}
	return nil
}

// checkPlotted checks that each series of f is a path of the SVG drawn
// at its data's coordinates.
func checkPlotted(t *testing.T, f *Figure, svg []byte) {
	t.Helper()
	paths := svgPaths(t, svg)
	for _, s := range f.Series {
		var errs []string
		found := false
		for _, p := range paths {
			if err := affine(s.Points, p); err == nil {
				found = true
				break
			} else if len(p) == len(s.Points) {
				errs = append(errs, err.Error())
			}
		}
		if !found {
			t.Errorf("%s, %s: no path draws the %d points %v (same-length paths: %v)", f.Title, s.Label, len(s.Points), s.Points, errs)
		}
	}
}

// checkBands checks that the band of each banded series of f is a filled
// path of the SVG drawn at the interval's bounds: along the upper bounds,
// then back along the lower ones.
func checkBands(t *testing.T, f *Figure, svg []byte) {
	t.Helper()
	paths := svgPaths(t, svg)
	for _, s := range f.Series {
		if len(s.Band) == 0 {
			continue
		}
		var ring []Point
		for _, iv := range s.Band {
			ring = append(ring, Point{iv.X, iv.High})
		}
		for i := len(s.Band) - 1; i >= 0; i-- {
			ring = append(ring, Point{s.Band[i].X, s.Band[i].Low})
		}
		found := false
		for _, p := range paths {
			if affine(ring, p) == nil {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s, %s: no path draws the band %v", f.Title, s.Label, s.Band)
		}
	}
}
