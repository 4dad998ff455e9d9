package serve

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes maps the API (paths are contracts: see the README), the
// dashboard and the metrics.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/crawls", s.handle(s.listCrawls))
	mux.HandleFunc("POST /api/crawls", s.mutating(s.createCrawl))
	mux.HandleFunc("GET /api/crawls/{id}", s.handle(s.getCrawl))
	mux.HandleFunc("POST /api/crawls/{id}/stop", s.mutating(s.stopCrawl))
	mux.HandleFunc("POST /api/crawls/{id}/resume", s.mutating(s.resumeCrawl))
	mux.HandleFunc("POST /api/crawls/{id}/seeds", s.mutating(s.addSeeds))
	mux.HandleFunc("GET /api/crawls/{id}/forms", s.handle(s.crawlForms))
	mux.HandleFunc("GET /api/crawls/{id}/failures", s.handle(s.crawlFailures))
	mux.HandleFunc("GET /api/crawls/{id}/features", s.handle(s.crawlFeatures))
	mux.HandleFunc("GET /api/crawls/{id}/curve", s.handle(s.crawlCurve))

	mux.HandleFunc("GET /api/surface", s.listTasks(KindSurface))
	mux.HandleFunc("POST /api/surface", s.mutating(s.createSurface))
	mux.HandleFunc("GET /api/surface/{id}", s.getTask(KindSurface))
	mux.HandleFunc("POST /api/surface/{id}/stop", s.stopTask(KindSurface))
	mux.HandleFunc("POST /api/surface/{id}/resume", s.resumeTask(KindSurface))
	mux.HandleFunc("GET /api/surface/{id}/curve", s.taskCurve(KindSurface))

	mux.HandleFunc("GET /api/enrich", s.listTasks(KindEnrich))
	mux.HandleFunc("POST /api/enrich", s.mutating(s.createEnrich))
	mux.HandleFunc("GET /api/enrich/{id}", s.getTask(KindEnrich))
	mux.HandleFunc("POST /api/enrich/{id}/stop", s.stopTask(KindEnrich))
	mux.HandleFunc("POST /api/enrich/{id}/resume", s.resumeTask(KindEnrich))
	mux.HandleFunc("GET /api/enrich/{id}/curve", s.taskCurve(KindEnrich))
	mux.HandleFunc("GET /api/enrich/{id}/output", s.handle(s.enrichOutput))

	mux.HandleFunc("GET /api/harvests", s.handle(s.listHarvests))
	mux.HandleFunc("POST /api/harvests", s.mutating(s.createHarvest))
	mux.HandleFunc("GET /api/harvests/{id}", s.handle(s.getHarvest))
	mux.HandleFunc("POST /api/harvests/{id}/stop", s.mutating(s.stopHarvest))
	mux.HandleFunc("POST /api/harvests/{id}/resume", s.mutating(s.resumeHarvest))
	mux.HandleFunc("GET /api/harvests/{id}/curve", s.handle(s.harvestCurve))

	mux.HandleFunc("GET /api/profiles", s.handle(s.listProfiles))
	mux.HandleFunc("/api/", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return &apiError{http.StatusNotFound, "no such API path: " + r.Method + " " + r.URL.Path}
	}))

	metrics := promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{s}})
	mux.Handle("GET /metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		metrics.ServeHTTP(w, r)
		s.log.Debug("serve: metrics scraped", "took", time.Since(start))
	}))

	mux.HandleFunc("GET /{$}", s.handle(s.dashboardIndex))
	mux.HandleFunc("GET /crawls/{id}", s.handle(s.dashboardCrawl))
	mux.HandleFunc("GET /harvests/{id}", s.handle(s.dashboardHarvest))
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(staticFS)))
	return mux
}

// slogPrinter lets promhttp log through the server's logger.
type slogPrinter struct{ s *Server }

func (p slogPrinter) Println(v ...any) { p.s.log.Error("serve: metrics", "err", v) }
