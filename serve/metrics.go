package serve

import (
	"sort"
	"sync/atomic"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus metrics. The counts of the jobs are
// read from the jobs when scraped (the live engine's counters, or the last
// ones of a stopped job), so a scrape costs no store access but the forms
// by kind of a running crawl, recounted at most every few seconds. Fetch
// latency and failures by cause are observed in the fetch path since the
// server started.
type metrics struct {
	s            *Server
	fetchSeconds *prometheus.HistogramVec

	pages, failed, fetchFailures, formsSeen, forms, relevant *prometheus.Desc
	sites, deepSites, frontier, harvest, queries, jobState   *prometheus.Desc
	harvestDBs, harvestRecords                               *prometheus.Desc
}

func newMetrics(s *Server) *metrics {
	byCrawl := []string{"crawl"}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("dwcrawl_"+name, help, labels, nil)
	}
	return &metrics{
		s: s,
		fetchSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "dwcrawl_fetch_duration_seconds",
			Help:    "Duration of the page fetches of each crawl (robots.txt, politeness wait and retries included).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, byCrawl),
		pages:         d("crawl_pages_fetched_total", "Pages fetched by the crawl, failed ones included (over all its runs).", byCrawl...),
		failed:        d("crawl_pages_failed_total", "Pages whose fetch or parse failed (over all its runs).", byCrawl...),
		fetchFailures: d("crawl_fetch_failures_total", "Failed fetches by cause since the server started.", "crawl", "cause"),
		formsSeen:     d("crawl_forms_seen_total", "Forms seen on fetched pages, searchable or not.", byCrawl...),
		forms:         d("crawl_forms", "Searchable forms recorded, by the classifier's kind.", "crawl", "kind"),
		relevant:      d("crawl_relevant_forms", "Relevant searchable forms recorded.", byCrawl...),
		sites:         d("crawl_sites", "Sites visited.", byCrawl...),
		deepSites:     d("crawl_deep_sites", "Sites with a relevant searchable form.", byCrawl...),
		frontier:      d("crawl_frontier_size", "Entries waiting in the crawl's frontiers (sites: the site frontier; links: the link frontiers).", "crawl", "frontier"),
		harvest:       d("crawl_harvest_rate", "Relevant searchable forms per page fetched.", byCrawl...),
		queries:       d("queries_sent_total", "Queries sent: reverse-search engine queries of a crawl, keyword queries of a surfacing or an enrichment.", "job", "kind"),
		jobState:      d("job_state", "1 for the job's current state (running, done, stopped, failed).", "job", "kind", "state"),
		harvestDBs: d("harvest_databases", "A harvest's databases by stage: found (relevant or probed searchable forms), probed, topic (judged a database of the topic), surfacing, done.",
			"job", "stage"),
		harvestRecords: d("harvest_records", "Records a harvest stored, over all its databases.", "job"),
	}
}

func (m *metrics) register(reg *prometheus.Registry) error {
	for _, c := range []prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.fetchSeconds, m,
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.pages, m.failed, m.fetchFailures, m.formsSeen, m.forms, m.relevant,
		m.sites, m.deepSites, m.frontier, m.harvest, m.queries, m.jobState, m.harvestDBs, m.harvestRecords} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, j := range m.s.list("") {
		gauge(m.jobState, 1, j.id, j.kind, j.record().State)
		switch w := j.work.(type) {
		case *crawlWork:
			sn, _ := w.snapshot()
			m.collectCrawl(ch, j.id, sn, w.fetchHist)
			kinds := w.formKindsForMetrics()
			names := make([]string, 0, len(kinds))
			for k := range kinds {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				gauge(m.forms, float64(kinds[k]), j.id, k)
			}
		case *harvestWork:
			// a harvest's discovery is a crawl: its metrics under its id
			p, _, _ := w.snapshot()
			m.collectCrawl(ch, j.id, p.Crawl, w.fetchHist)
			counter(m.queries, float64(p.Queries), j.id, KindHarvest)
			for _, st := range []struct {
				name string
				n    int
			}{{"found", p.Found}, {"probed", p.Probed}, {"topic", p.Topic}, {"surfacing", p.Surfacing}, {"done", p.Done}} {
				gauge(m.harvestDBs, float64(st.n), j.id, st.name)
			}
			gauge(m.harvestRecords, float64(p.Records), j.id)
		case *surfaceWork:
			counter(m.queries, float64(w.status().Queries), j.id, KindSurface)
		case *enrichWork:
			counter(m.queries, float64(w.status().Queries), j.id, KindEnrich)
		}
	}
}

// collectCrawl sends the counts of a crawl (or a harvest's discovery).
func (m *metrics) collectCrawl(ch chan<- prometheus.Metric, id string, sn crawl.Snapshot, fetches *fetchObserver) {
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter(m.pages, float64(sn.Pages), id)
	counter(m.failed, float64(sn.Failed), id)
	counter(m.formsSeen, float64(sn.Forms), id)
	gauge(m.relevant, float64(sn.RelevantForms), id)
	gauge(m.sites, float64(sn.Sites), id)
	gauge(m.deepSites, float64(sn.DeepSites), id)
	gauge(m.frontier, float64(sn.FrontierSites), id, "sites")
	gauge(m.frontier, float64(sn.FrontierLinks), id, "links")
	gauge(m.harvest, sn.HarvestRate, id)
	counter(m.queries, float64(sn.ReverseQueries), id, "reverse")
	fetches.failures.Range(func(cause, n any) bool {
		counter(m.fetchFailures, float64(n.(*atomic.Int64).Load()), id, cause.(string))
		return true
	})
}
