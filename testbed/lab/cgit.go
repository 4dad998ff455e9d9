package lab

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// cgit is the cgit web front end to git repositories holding the vega cars
// and airports, one commit per record (the record in the message and in a
// file), written with git's own fast-import. cgit's log search (grep over
// commit messages) with its ofs= pagination fronts each repository.
type cgit struct{}

const cgitCGI = "/usr/lib/cgit/cgit.cgi"

func (*cgit) info() appInfo {
	return appInfo{
		Name: "cgit", Host: "git." + Domain, Title: "Lab Code", Package: "cgit",
		Data:  "vega cars (corpora/vega/cars.json) and airports (corpora/vega/airports.csv): one commit per record",
		Needs: []need{{cgitCGI, "cgit"}, {"/usr/bin/git", "git"}},
	}
}

func (*cgit) start(context.Context, *env) error { return nil }

const cgitrc = `# written by the dwcrawl lab
css=/cgit.css
logo=/cgit.png
favicon=/favicon.ico
robots=index, follow
virtual-root=/
cache-size=0
root-title=Lab Code
root-desc=Data repositories of the dwcrawl lab: one commit per record
enable-index-links=1
enable-commit-graph=0
enable-http-clone=0
max-commit-count=25
max-message-length=120
noplainemail=1
snapshots=
`

func (c *cgit) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("cgit")
	cars, err := readCars(e.data)
	if err != nil {
		return nil, err
	}
	airports, err := readAirports(e.data)
	if err != nil {
		return nil, err
	}
	repos := []gitRepo{carsRepo(cars), airportsRepo(airports)}
	var rc strings.Builder
	rc.WriteString(cgitrc)
	footer := filepath.Join(dir, "footer.html")
	fmt.Fprintf(&rc, "footer=%s\n", footer)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(footer, []byte(fmt.Sprintf("<div class='footer'>Lab Code, part of the <a href='%s'>dwcrawl lab</a>.</div>\n", e.lab.URL(Hub, "/"))), 0o644); err != nil {
		return nil, err
	}
	var recs []Record
	for _, r := range repos {
		path := filepath.Join(dir, "repos", r.name+".git")
		marks, err := importRepo(ctx, e, path, "loader@git."+Domain, r)
		if err != nil {
			return nil, fmt.Errorf("repository %s: %w", r.name, err)
		}
		fmt.Fprintf(&rc, "\nrepo.url=%s\nrepo.path=%s\nrepo.desc=%s\nrepo.owner=dwcrawl lab\n", r.name, path, r.desc)
		recs = append(recs, Record{Backend: "git." + Domain + "/repositories", ID: r.name, Title: r.name, Path: "/" + r.name + "/", Text: r.desc})
		for i, cm := range r.commits {
			sha := marks[i+1]
			if sha == "" {
				return nil, fmt.Errorf("repository %s: no commit for record %s", r.name, cm.id)
			}
			recs = append(recs, Record{Backend: "git." + Domain + "/" + r.name, ID: cm.id, Title: cm.subject,
				Path: "/" + r.name + "/commit/?id=" + sha, Text: cm.subject + " " + cm.body})
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cgitrc"), []byte(rc.String()), 0o644); err != nil {
		return nil, err
	}
	www := filepath.Join(dir, "www")
	if err := os.MkdirAll(www, 0o755); err != nil {
		return nil, err
	}
	for name, target := range map[string]string{
		"cgit.cgi": cgitCGI, "cgit.css": "/usr/share/cgit/cgit.css", "cgit.png": "/usr/share/cgit/cgit.png",
		"favicon.ico": "/usr/share/cgit/favicon.ico", "robots.txt": "/usr/share/cgit/robots.txt",
	} {
		if err := os.Symlink(target, filepath.Join(www, name)); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

func carsRepo(cs []car) gitRepo {
	r := gitRepo{name: "cars", desc: "Cars of the 1970s and early 1980s: mileage, engine, weight (vega cars)"}
	seen := map[string]int{}
	for i, c := range cs {
		year := strings.SplitN(c.Year, "-", 2)[0]
		slug := dwID(c.Name) + "_" + year
		seen[slug]++
		if seen[slug] > 1 {
			slug = fmt.Sprintf("%s_%d", slug, seen[slug])
		}
		var facts []string
		add := func(p *float64, f string) {
			if p != nil {
				facts = append(facts, fmt.Sprintf(f, *p))
			}
		}
		add(c.Cylinders, "%.0f cylinders")
		add(c.Displacement, "%.0f cubic inches")
		add(c.Horsepower, "%.0f horsepower")
		add(c.MPG, "%.1f miles per gallon")
		add(c.Weight, "%.0f lbs")
		add(c.Acceleration, "0-60 mph in %.1f s")
		when, err := time.Parse("2006-01-02", c.Year)
		if err != nil {
			when = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		when = when.Add(time.Duration(i) * time.Hour)
		body := fmt.Sprintf("Model year %s, made in %s: %s.", year, c.Origin, strings.Join(facts, ", "))
		r.commits = append(r.commits, gitCommit{
			id: slug, subject: fmt.Sprintf("Add %s (%s)", c.Name, year), body: body,
			path: strings.ToLower(c.Origin) + "/" + slug + ".txt", content: c.Name + "\n" + body + "\n", when: when,
		})
	}
	return r
}

type airport struct{ IATA, Name, City, State, Country, Lat, Lon string }

func readAirports(data string) ([]airport, error) {
	path := filepath.Join(data, "corpora/vega/airports.csv")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if strings.Join(head, ",") != "iata,name,city,state,country,latitude,longitude" {
		return nil, fmt.Errorf("%s: unexpected header %q", path, head)
	}
	var out []airport
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, airport{rec[0], rec[1], rec[2], rec[3], rec[4], rec[5], rec[6]})
	}
}

func airportsRepo(as []airport) gitRepo {
	r := gitRepo{name: "airports", desc: "US airports with their IATA codes, cities and coordinates (vega airports)"}
	t0 := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, a := range as {
		place := a.City
		if a.State != "" {
			place += ", " + a.State
		}
		body := fmt.Sprintf("%s airport %s serves %s (%s); latitude %s, longitude %s.", a.IATA, a.Name, place, a.Country, a.Lat, a.Lon)
		r.commits = append(r.commits, gitCommit{
			id: a.IATA, subject: fmt.Sprintf("Add %s (%s), %s", a.Name, a.IATA, place), body: body,
			path:    strings.ToLower(a.State) + "/" + strings.ToLower(a.IATA) + ".txt",
			content: a.Name + "\n" + body + "\n", when: t0.Add(time.Duration(i) * time.Hour),
		})
	}
	return r
}

func (c *cgit) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  setenv.add-environment = ("CGIT_CONFIG" => %q)
  cgi.assign = (".cgi" => "")
  url.rewrite-if-not-file = ("^/([^?]*)(?:\?(.*))?$" => "/cgit.cgi?url=$1&$2")
`, e.path("cgit", "www"), e.path("cgit", "cgitrc"))
}

func (c *cgit) pages(recs []Record) []string {
	var out = []string{"/"}
	seen := map[string]bool{}
	for _, r := range recs {
		repo := strings.TrimPrefix(r.Backend, "git."+Domain+"/")
		if seen[repo] || repo == "repositories" {
			continue
		}
		seen[repo] = true
		out = append(out, "/"+repo+"/", "/"+repo+"/log/", "/"+repo+"/log/?qt=grep&q="+queryWord(r), r.Path)
	}
	return out
}

func (c *cgit) label(f *Form) formLabel {
	fields := fieldSet(f)
	switch {
	case !textField(f, "q") && fields["h"]:
		// the branch switcher (it carries a running search in hidden fields)
		return formLabel{Kind: "navigation"}
	case !textField(f, "q") && (fields["dt"] || fields["context"]):
		return formLabel{Kind: "options"} // a diff's display options
	case !textField(f, "q"):
		return formLabel{Kind: "other"}
	}
	// A repository's log search (action /REPO/log/) or the index's
	// repository filter (action /).
	u, err := url.Parse(f.Action)
	if err != nil {
		return formLabel{Kind: "other"}
	}
	if repo, ok := strings.CutSuffix(strings.TrimPrefix(u.Path, "/"), "/log/"); ok && repo != "" {
		return formLabel{Kind: "search", Backend: "git." + Domain + "/" + repo, QueryField: "q", PageParam: "ofs", PageSize: 25}
	}
	return formLabel{Kind: "search", Backend: "git." + Domain + "/repositories", QueryField: "q"}
}
