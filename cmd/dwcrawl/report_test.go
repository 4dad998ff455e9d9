package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/store"
)

// TestReportCommand crawls the simulated web, reports on the crawl
// directory and checks the plotted harvest curves and the table against
// the store's numbers.
func TestReportCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web")
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "auto")
	if _, err := runCLI(t, "run", "--testbed", "--pages", "200", "--dir", dir, filepath.Join("..", "..", "domains", "auto.lua")); err != nil {
		t.Fatal(err)
	}

	// what the store says, read here without the report package
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := db.Counter("crawl.pages")
	if err != nil {
		t.Fatal(err)
	}
	var formAt []int
	siteAt := map[string]int{}
	db.ScanForms(func(f store.Form) error {
		if f.Relevant {
			formAt = append(formAt, f.PagesFetched)
			if at, ok := siteAt[f.Site]; !ok || f.PagesFetched < at {
				siteAt[f.Site] = f.PagesFetched
			}
		}
		return nil
	})
	db.Close()
	if len(formAt) == 0 {
		t.Fatal("the crawl found no relevant form")
	}
	var sitesAt []int
	for _, at := range siteAt {
		sitesAt = append(sitesAt, at)
	}

	out := filepath.Join(tmp, "report.html")
	if _, err := runCLI(t, "report", "--dir", dir, "--out", out); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for id, at := range map[string][]int{"harvest-forms": formAt, "harvest-sites": sitesAt} {
		svg := figureSVG(t, page, id)
		if err := drawsSteps(svgLinePaths(t, svg), at, pages); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	row := tableRow(t, page, "table-crawl")
	rate := strconv.FormatFloat(float64(len(formAt))/float64(pages), 'f', 4, 64)
	if row[0] != "auto" || row[1] != strconv.FormatInt(pages, 10) || row[5] != strconv.Itoa(len(siteAt)) || row[8] != strconv.Itoa(len(formAt)) || row[9] != rate {
		t.Errorf("table row %v: want %d pages, %d deep sites, %d relevant forms, rate %s", row, pages, len(siteAt), len(formAt), rate)
	}

	// the image formats, by flag and by extension
	svgOut := filepath.Join(tmp, "plots.svg")
	if _, err := runCLI(t, "report", "--dir", dir, "--out", svgOut); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(svgOut)
	if paths := svgLinePaths(t, b); len(paths) == 0 {
		t.Error("the SVG draws no lines")
	}
	pngOut := filepath.Join(tmp, "plots.img")
	if _, err := runCLI(t, "report", "--dir", dir, "--out", pngOut, "--format", "png"); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(pngOut)
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("not a PNG: % x", b[:min(8, len(b))])
	}
	if img, err := png.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() < 1000 {
		t.Errorf("PNG: %v", err)
	}
}

// figureSVG cuts the inline SVG of the figure with the given id out of the
// page.
func figureSVG(t *testing.T, page []byte, id string) []byte {
	t.Helper()
	i := bytes.Index(page, []byte(`<figure id="`+id+`"`))
	if i < 0 {
		t.Fatalf("no figure %s", id)
	}
	fig := page[i:]
	s, e := bytes.Index(fig, []byte("<svg")), bytes.Index(fig, []byte("</svg>"))
	if s < 0 || e < s {
		t.Fatalf("figure %s has no SVG", id)
	}
	return fig[s : e+len("</svg>")]
}

// svgLinePaths parses the SVG (it must be well-formed) and returns the
// vertices of its straight-segment paths.
func svgLinePaths(t *testing.T, svg []byte) [][][2]float64 {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var out [][][2]float64
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "path" {
			continue
		}
		for _, a := range se.Attr {
			if a.Name.Local != "d" || !strings.HasPrefix(a.Value, "M") {
				continue
			}
			var pts [][2]float64
			for _, seg := range strings.FieldsFunc(a.Value, func(r rune) bool { return r == 'M' || r == 'L' }) {
				x, y, _ := strings.Cut(seg, ",")
				fx, err1 := strconv.ParseFloat(x, 64)
				fy, err2 := strconv.ParseFloat(y, 64)
				if err1 != nil || err2 != nil {
					pts = nil
					break
				}
				pts = append(pts, [2]float64{fx, fy})
			}
			if len(pts) > 0 {
				out = append(out, pts)
			}
		}
	}
}

// drawsSteps looks for the path of the count of events at positions at:
// it starts at (0, 0), ends at (pages, total), and, on the scale those two
// give, has a vertex at (p, events before p) and (p, events up to p) for
// every position p.
func drawsSteps(paths [][][2]float64, at []int, pages int64) error {
	sort.Ints(at)
	total := float64(len(at))
	for _, path := range paths {
		first, last := path[0], path[len(path)-1]
		if len(path) < 3 || last[0] <= first[0] || last[1] <= first[1] {
			continue
		}
		sx := (last[0] - first[0]) / float64(pages)
		sy := (last[1] - first[1]) / total
		has := func(x, y float64) bool {
			for _, v := range path {
				if math.Abs(v[0]-(first[0]+sx*x)) < 0.05 && math.Abs(v[1]-(first[1]+sy*y)) < 0.05 {
					return true
				}
			}
			return false
		}
		missing := ""
		for i, p := range at {
			before := sort.SearchInts(at, p)
			upto := sort.SearchInts(at, p+1)
			if i == 0 || at[i-1] != p {
				if !has(float64(p), float64(before)) || !has(float64(p), float64(upto)) {
					missing = fmt.Sprintf("no step at page %d from %d to %d", p, before, upto)
					break
				}
			}
		}
		if missing == "" {
			return nil
		}
	}
	return fmt.Errorf("no path draws %d events over %d pages (positions %v)", len(at), pages, at)
}

var cellRE = regexp.MustCompile(`<td>([^<]*)</td>`)

// tableRow returns the cells of the first data row of the table with the
// given id.
func tableRow(t *testing.T, page []byte, id string) []string {
	t.Helper()
	i := bytes.Index(page, []byte(`<table id="`+id+`">`))
	if i < 0 {
		t.Fatalf("no table %s", id)
	}
	tb := page[i:]
	tb = tb[:bytes.Index(tb, []byte("</table>"))]
	var row []string
	for _, line := range bytes.Split(tb, []byte("\n")) {
		if m := cellRE.FindAllSubmatch(line, -1); len(m) > 0 {
			for _, c := range m {
				row = append(row, string(c[1]))
			}
			return row
		}
	}
	t.Fatalf("table %s has no data row", id)
	return nil
}

func TestReportCommandErrors(t *testing.T) {
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	noCurves := filepath.Join(tmp, "bench")
	os.Mkdir(noCurves, 0o755)
	os.WriteFile(filepath.Join(noCurves, "harvest.csv"), []byte("domain,strategy,pages,error\nauto,ache,0,boom\n"), 0o644)
	out := filepath.Join(tmp, "r.html")
	tests := []struct {
		name string
		args []string
		code int
		text string
	}{
		{"no input", []string{"--out", out}, 2, "at least one --dir"},
		{"missing dir", []string{"--dir", filepath.Join(tmp, "nope"), "--out", out}, 0, "no such directory"},
		{"empty dir", []string{"--dir", empty, "--out", out}, 0, "empty directory"},
		{"bench without curves", []string{"--bench", noCurves, "--out", out}, 0, "without curves"},
		{"bad format", []string{"--bench", "../../report/testdata/bench-enrich-40.json", "--out", out, "--format", "pdf"}, 2, `--format "pdf"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runCLI(t, append([]string{"report"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("error %v, want %q", err, tt.text)
			}
			var ee errExit
			if tt.code != 0 && (!errors.As(err, &ee) || ee.code != tt.code) {
				t.Errorf("exit code of %v, want %d", err, tt.code)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("an output was written")
			}
		})
	}
}
