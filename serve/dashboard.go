package serve

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/crawl"
)

// web holds the dashboard: templates rendered by the server and the
// static script and style the pages load (no build step).
//
//go:embed web
var web embed.FS

var (
	staticFS, _ = fs.Sub(web, "web/static")
	pages       = template.Must(template.New("").Funcs(template.FuncMap{
		"pct": func(a int64, b int) int {
			if b <= 0 {
				return 0
			}
			return int(min(100, 100*a/int64(b)))
		},
	}).ParseFS(web, "web/*.html"))
)

// indexPage is the data of the dashboard's front page.
type indexPage struct {
	Crawls        []CrawlStatus
	Surface       []SurfaceStatus
	Enrich        []EnrichStatus
	Harvests      []HarvestStatus
	Profiles      []string
	Strategies    []string
	TokenRequired bool
}

// crawlPage is the data of a crawl's page.
type crawlPage struct {
	Crawl         CrawlStatus
	TokenRequired bool
}

func (s *Server) render(w http.ResponseWriter, name string, data any) error {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err := w.Write(b.Bytes())
	return err
}

func (s *Server) dashboardIndex(w http.ResponseWriter, r *http.Request) error {
	p := indexPage{Crawls: []CrawlStatus{}, Strategies: crawl.Strategies, TokenRequired: s.opt.Token != ""}
	for _, j := range s.list("") {
		switch wk := j.work.(type) {
		case *crawlWork:
			p.Crawls = append(p.Crawls, wk.status())
		case *surfaceWork:
			p.Surface = append(p.Surface, wk.status())
		case *enrichWork:
			p.Enrich = append(p.Enrich, wk.status())
		case *harvestWork:
			st, err := wk.status()
			if err != nil {
				return err
			}
			p.Harvests = append(p.Harvests, st)
		}
	}
	p.Profiles = s.profiles()
	return s.render(w, "index.html", p)
}

func (s *Server) dashboardCrawl(w http.ResponseWriter, r *http.Request) error {
	_, c, err := s.crawlJob(r)
	if err != nil {
		return err
	}
	return s.render(w, "crawl.html", crawlPage{Crawl: c.status(), TokenRequired: s.opt.Token != ""})
}

// harvestPage is the data of a harvest's page.
type harvestPage struct {
	Harvest       HarvestStatus
	TokenRequired bool
}

func (s *Server) dashboardHarvest(w http.ResponseWriter, r *http.Request) error {
	_, h, err := s.harvestJob(r)
	if err != nil {
		return err
	}
	st, err := h.status()
	if err != nil {
		return err
	}
	return s.render(w, "harvest.html", harvestPage{Harvest: st, TokenRequired: s.opt.Token != ""})
}

// profiles lists the profile files of the allowed directories (the root's
// jobs apart), as paths a request may name.
func (s *Server) profiles() []string {
	root, _ := realDir(s.opt.Root)
	wd, _ := os.Getwd()
	out := []string{}
	for _, d := range s.allow {
		if d == root {
			continue
		}
		m, _ := filepath.Glob(filepath.Join(d, "*.lua"))
		for _, f := range m {
			if rel, err := filepath.Rel(wd, f); err == nil && !strings.HasPrefix(rel, "..") {
				f = rel
			}
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Server) listProfiles(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.profiles())
	return nil
}
