package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// redmine is Redmine, the Ruby on Rails issue tracker, on SQLite, holding
// the WordNet glosses of five clinical topics as the issues of one public
// project, created through Redmine's own models with `rails runner` after
// its own `rake db:migrate`. It runs from a copy of the Debian package's
// code in the lab directory (the package's instance layout reads /etc and
// /var) under Rails' WEBrick server on a private loopback port; lighttpd
// proxies the virtual host to it and serves the static files itself.
// Redmine's search (/search, or /projects/clinic/search) lists 10 results
// a page with "Next »" links (page=) and the count per type ("Issues (N)").
type redmine struct {
	port int // the Rails server's private loopback port
}

const (
	rmRoot    = "/usr/share/redmine"
	rmProject = "clinic"
	// rmPerPage is Redmine's search_results_per_page, set by the loader.
	rmPerPage = 10
	// rmInstance is the Debian multi-tenancy instance name of the copy:
	// its database.yml, secret key, logs and tmp live in
	// app/instances/lab.
	rmInstance = "lab"
)

// rmTopics are the WordNet topic domains loaded, one issue category each.
var rmTopics = []string{"medicine", "anatomy", "physiology", "genetics", "psychology"}

func (*redmine) info() appInfo {
	return appInfo{
		Name: "redmine", Host: rmProject + "." + Domain, Title: "Lab Clinic Tracker", Package: "redmine",
		Data: "WordNet 3.0 glosses of the topics " + strings.Join(rmTopics, ", ") +
			" (corpora/wordnet-glosses.jsonl): one issue per synset in a public project",
		Needs: []need{
			{rmRoot + "/config/environment.rb", "redmine"},
			{"/usr/lib/ruby/vendor_ruby/sqlite3.rb", "redmine-sqlite"},
			{"/usr/share/rubygems-integration/all/gems/webrick-*/lib/webrick.rb", "ruby-webrick"},
			{"/usr/lib/lighttpd/mod_proxy.so", "lighttpd"},
		},
	}
}

func (*redmine) backend() string { return rmProject + "." + Domain + "/issues" }

func (*redmine) app(e *env) string { return e.path("redmine", "app") }

// railsEnv selects the lab's instance of the copy and the production
// environment for every Rails command and the server.
func (*redmine) railsEnv() []string {
	return []string{"REDMINE_INSTANCE=" + rmInstance, "RAILS_ENV=production"}
}

// start serves an already loaded Redmine; a fresh one is served at the end
// of load (the server needs the migrated database).
func (r *redmine) start(ctx context.Context, e *env) error {
	if _, err := os.Stat(e.path("redmine", "records.json")); err != nil {
		return nil
	}
	return r.serve(ctx, e)
}

// rmCopy copies the package's code ($1) to the lab ($2). The package's
// instances/, database.yml and Gemfile.lock point into /etc and /var; its
// relative links (to /usr/share/javascript…) would dangle in the copy and
// become absolute. The Gemfile picks the database gems from the
// database.yml files under its own absolute path, which becomes the copy's.
// Gemfile.local (Redmine's place for a site's own gems) adds WEBrick, the
// Rails server Debian packages (no puma; passenger is only recommended).
const rmCopy = `set -e
cp -a "$1/." "$2/"
cd "$2"
rm -f instances config/database.yml Gemfile.lock
cd "$1"
find . -type l | while read -r l; do
	if [ -L "$2/$l" ]; then ln -sfn "$(readlink -f "$l")" "$2/$l"; fi
done
cd "$2"
sed -i "s|$1/{config,|$2/{config,|" Gemfile
grep -q "$2/{config," Gemfile
echo 'gem "webrick"' > Gemfile.local
for d in config db log tmp/pids files; do mkdir -p "instances/$3/$d"; done
`

// rmLoader is run by `rails runner` with the input and output files, the
// host name and the hub's URL: it loads Redmine's default configuration
// (trackers, statuses, roles: the anonymous role views issues), sets what a
// public tracker's owner sets (self-registration with an administrator's
// activation so its form exists, no mail, no gravatars), creates the public
// project with a category per topic and an issue per gloss, and writes the
// issue number of each record.
const rmLoader = `# written by the dwcrawl lab
require 'json'
input, output, host, hub, per_page = ARGV
Redmine::DefaultData::Loader.load('en')
Setting.notified_events = []
Setting.app_title = 'Lab Clinic Tracker'
Setting.host_name = host
Setting.protocol = 'http'
Setting.default_language = 'en'
Setting.force_default_language_for_anonymous = '1'
Setting.login_required = '0'
Setting.self_registration = '2'
Setting.lost_password = '1'
Setting.gravatar_enabled = '0'
Setting.rest_api_enabled = '0'
Setting.search_results_per_page = per_page
Setting.welcome_text = "Welcome to the *Lab Clinic Tracker*, the issue tracker of the lab's clinic: " \
  "terms of medicine, anatomy, physiology, genetics and psychology with their definitions, one issue each.\n\n" \
  "Elsewhere in the lab: \"the lab hub\":#{hub}."
project = Project.new(name: 'Lab Clinic Tracker', identifier: 'clinic', is_public: true,
  description: "Clinical terms with their definitions from WordNet 3.0, one issue per term.")
project.enabled_module_names = ['issue_tracking']
project.trackers = Tracker.all
project.save!
author = User.find_by_login('admin')
tracker = Tracker.find_by_name('Support') || Tracker.first
cats = {}
out = []
Issue.transaction do
  JSON.parse(File.read(input)).each do |r|
    cat = cats[r['category']] ||= project.issue_categories.create!(name: r['category'])
    i = Issue.new(project: project, tracker: tracker, author: author, category: cat,
                  subject: r['subject'], description: r['description'])
    i.save!
    out << {id: r['id'], issue: i.id}
  end
end
File.write(output, JSON.generate(out))
`

// rmRobots is Redmine's own robots.txt (app/views/welcome/robots.text.erb
// for the one project) without its Disallow of /search, /login,
// /account/register and /account/lost_password: the lab's tracker wants its
// search crawled, and its login and registration pages are the crawls'
// negatives.
const rmRobots = `User-agent: *
Disallow: /projects/clinic/repository
Disallow: /projects/clinic/issues
Disallow: /projects/clinic/activity
Disallow: /projects/1/repository
Disallow: /projects/1/issues
Disallow: /projects/1/activity
Disallow: /issues/gantt
Disallow: /issues/calendar
Disallow: /activity
Disallow: /issues?sort=
Disallow: /issues?query_id=
Disallow: /issues?*set_filter=
Disallow: /issues/*.pdf$
Disallow: /projects/*.pdf$
`

// rmInput is one issue to create.
type rmInput struct {
	ID          string `json:"id"`
	Subject     string `json:"subject"`
	Category    string `json:"category"`
	Description string `json:"description"`
}

func (r *redmine) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("redmine")
	app := r.app(e)
	if err := os.MkdirAll(app, 0o755); err != nil {
		return nil, err
	}
	if _, err := e.run(ctx, dir, nil, "sh", "-c", rmCopy, "sh", rmRoot, app, rmInstance); err != nil {
		return nil, err
	}
	inst := filepath.Join(app, "instances", rmInstance)
	dbyml := fmt.Sprintf("# written by the dwcrawl lab\nproduction:\n  adapter: sqlite3\n  database: %s\n  timeout: 5000\n",
		filepath.Join(inst, "db", "redmine.sqlite3"))
	conf := fmt.Sprintf("# written by the dwcrawl lab\ndefault:\n  attachments_storage_path: %s\n", filepath.Join(inst, "files"))
	// The secret key base, generated once per lab directory (Debian's
	// multi-tenancy reads it from the instance's secret_key.txt).
	key := make([]byte, 64)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := writeFiles(filepath.Join(inst, "config"), map[string]string{
		"database.yml": dbyml, "configuration.yml": conf, "secret_key.txt": hex.EncodeToString(key) + "\n",
	}); err != nil {
		return nil, err
	}
	if _, err := e.run(ctx, app, r.railsEnv(), "bin/rake", "db:migrate"); err != nil {
		return nil, err
	}
	var in []rmInput
	seen := map[string]bool{}
	text := map[string]string{}
	subject := map[string]string{}
	for _, topic := range rmTopics {
		gs, err := readGlosses(e.data, topic)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			if seen[g.ID] {
				continue // a synset of two topics is one issue, in the first's category
			}
			seen[g.ID] = true
			desc := g.Gloss
			if len(g.Lemmas) > 1 {
				desc += "\n\nSynonyms: " + strings.Join(g.Lemmas, ", ")
			}
			// The subject names the term and its topic, the way WordNet
			// marks a sense's domain: a result title says what it is.
			subj := g.Lemmas[0] + " (" + topic + ")"
			in = append(in, rmInput{ID: g.ID, Subject: subj, Category: strings.ToUpper(topic[:1]) + topic[1:], Description: desc})
			subject[g.ID] = subj
			text[g.ID] = strings.Join(g.Lemmas, " ") + " " + g.Gloss
		}
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	inFile, outFile, script := filepath.Join(dir, "issues-in.json"), filepath.Join(dir, "issues.json"), filepath.Join(dir, "load.rb")
	if err := writeFiles(dir, map[string]string{"issues-in.json": string(b), "load.rb": rmLoader, "robots.txt": rmRobots}); err != nil {
		return nil, err
	}
	host := strings.TrimPrefix(e.lab.URL(r.info().Host, ""), "http://")
	host = strings.TrimSuffix(host, "/")
	if _, err := e.run(ctx, app, r.railsEnv(), "bin/rails", "runner", script, inFile, outFile, host,
		e.lab.URL(Hub, "/"), strconv.Itoa(rmPerPage)); err != nil {
		return nil, err
	}
	var out []struct {
		ID    string `json:"id"`
		Issue int    `json:"issue"`
	}
	if err := readJSON(outFile, &out); err != nil {
		return nil, err
	}
	if len(out) != len(in) {
		return nil, fmt.Errorf("%s: %d issues for %d glosses", outFile, len(out), len(in))
	}
	recs := make([]Record, len(out))
	for i, o := range out {
		recs[i] = Record{Backend: r.backend(), ID: o.ID, Title: subject[o.ID], Path: fmt.Sprintf("/issues/%d", o.Issue), Text: text[o.ID]}
	}
	return recs, r.serve(ctx, e)
}

// serve starts Rails' WEBrick on a free loopback port and waits until it
// answers (loading Rails and Redmine takes half a minute or more on a busy
// machine).
func (r *redmine) serve(ctx context.Context, e *env) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	r.port = port
	app := r.app(e)
	// A server killed with the lab leaves its pid file, and Rails refuses to
	// start over one.
	pid := filepath.Join(app, "instances", rmInstance, "tmp", "pids", "server.pid")
	os.Remove(pid)
	p, err := e.lab.startProc("redmine", e.path("log", "redmine.out"), r.railsEnv(), filepath.Join(app, "bin", "rails"),
		"server", "-u", "webrick", "-b", "127.0.0.1", "-p", strconv.Itoa(port), "-P", pid)
	if err != nil {
		return err
	}
	c := &http.Client{Timeout: 30 * time.Second}
	home := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	if err := waitFor(ctx, p, 3*time.Minute, func() error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, home, nil)
		req.Host = r.info().Host
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("redmine: HTTP %d", resp.StatusCode)
		}
		return nil
	}); err != nil {
		return err
	}
	e.logf("redmine: Rails server on 127.0.0.1:%d", port)
	return nil
}

// vhost serves the public directory's files (the package's javascripts,
// stylesheets, images, themes, help) and robots.txt from lighttpd and
// proxies everything else to Rails.
func (r *redmine) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  alias.url = ("/robots.txt" => %q)
  $HTTP["url"] !~ "^/(robots\.txt$|favicon\.ico$|(javascripts|stylesheets|images|themes|help|plugin_assets)/)" {
    proxy.server = ("" => (("host" => "127.0.0.1", "port" => %d)))
  }
`, filepath.Join(r.app(e), "public"), e.path("redmine", "robots.txt"), r.port)
}

func (r *redmine) pages(recs []Record) []string {
	rec := pick(recs, 1)[0]
	q := url.QueryEscape(queryWord(rec))
	return []string{
		"/",
		"/projects/" + rmProject,
		rec.Path,
		// the issue and project lists: their filter forms have no query box
		"/issues",
		"/projects",
		"/search?q=" + q,
		"/projects/" + rmProject + "/search?q=" + q,
		"/login",
		"/account/lost_password",
		"/account/register",
	}
}

func (r *redmine) label(f *Form) formLabel {
	fields := fieldSet(f)
	u, _ := url.Parse(f.Action)
	path := ""
	if u != nil {
		path = u.Path
	}
	switch {
	case textField(f, "q") && strings.HasSuffix(path, "/search"):
		// the header's quick search, the mobile menu's and the search
		// page's own form (global, or the project's: the same issues)
		return formLabel{Kind: "search", Backend: r.backend(), QueryField: "q", PageParam: "page", PageControl: "link", PageSize: rmPerPage}
	case fields["username"] && fields["password"]:
		return formLabel{Kind: "login"}
	case fields["user[login]"] && fields["user[password_confirmation]"]:
		return formLabel{Kind: "registration"}
	case path == "/account/lost_password" || fields["mail"] && len(fields) <= 3:
		return formLabel{Kind: "password"}
	case fields["set_filter"]:
		// an issue or project list's filters, columns and grouping
		// (query_form: filters are added by script, there is no box to
		// type a query in), or the issue list's CSV export options
		// (/issues.csv)
		return formLabel{Kind: "options"}
	}
	// the issue list's bulk form (the rows' checkboxes for the context
	// menu), the project list's empty form
	return formLabel{Kind: "other"}
}
