package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// gitit is Gitit, a wiki written in Haskell that keeps its pages in a git
// repository and serves itself over HTTP (Happstack). It holds the WordNet
// glosses of the mythology topics, one Markdown page per synset, committed
// with git into the repository gitit created. Gitit runs as the lab's child
// on a loopback port of its own; lighttpd proxies the host to it. Its search
// (git grep over the pages) shows every result on one page.
type gitit struct {
	port int // gitit's own loopback port, chosen on every start
}

const gititHost = "myth." + Domain

// gititTopics are the WordNet topic domains the wiki holds, each a category.
var gititTopics = []string{"Greek mythology", "Norse mythology", "Roman mythology"}

func (*gitit) info() appInfo {
	return appInfo{
		Name: "gitit", Host: gititHost, Title: "Lab Mythology Wiki", Package: "gitit",
		Data: "WordNet 3.0 glosses of the topics Greek, Norse and Roman mythology (corpora/wordnet-glosses.jsonl): " +
			"one Markdown page per synset, committed to the wiki's git repository",
		Needs: []need{{"/usr/bin/gitit", "gitit"}, {"/usr/share/gitit/data/templates/page.st", "libghc-gitit-data"},
			{"/usr/bin/git", "git"}},
	}
}

func (*gitit) backend() string { return gititHost + "/glosses" }

// gititConf is gitit's configuration (gitit --print-default-config gives
// every key): loopback only, anonymous users read and search while editing
// needs an account anyone can register, no outbound requests (math is left
// as written instead of MathJax from a CDN, no feeds, no recaptcha, mail
// goes nowhere).
const gititConf = `# written by the dwcrawl lab; regenerated on every start
address: 127.0.0.1
port: %d
wiki-title: Lab Mythology Wiki
repository-type: Git
repository-path: %s
require-authentication: modify
authentication-method: form
user-file: %s
session-timeout: 60
static-dir: %s
templates-dir: %s
log-file: %s
log-level: WARNING
default-page-type: Markdown
default-extension: page
math: raw
front-page: Front Page
no-delete: Front Page, Help
no-edit: Help
table-of-contents: no
use-cache: no
cache-dir: %s
max-upload-size: 100K
max-page-size: 100K
debug-mode: no
compress-responses: yes
use-recaptcha: no
disable-registration: no
access-question:
access-question-answers:
mail-command: cat >/dev/null
use-feed: no
absolute-urls: no
xss-sanitize: yes
`

// gititRobots keeps crawlers out of the history and edit views (every page
// has several), not out of search, login or registration.
const gititRobots = `User-agent: *
Disallow: /_history/
Disallow: /_diff/
Disallow: /_activity
Disallow: /_random
Disallow: /_edit/
Disallow: /_delete/
Disallow: /_showraw/
Disallow: /_expire/
`

// start runs gitit on a loaded wiki; a wiki not loaded yet is started by
// load (gitit itself creates its repository on first start, and loadOnce
// clears the application's directory before load).
func (g *gitit) start(ctx context.Context, e *env) error {
	if _, err := os.Stat(e.path("gitit", "records.json")); err != nil {
		return nil
	}
	return g.serve(ctx, e)
}

// serve writes the configuration with a free port and starts gitit.
func (g *gitit) serve(ctx context.Context, e *env) error {
	dir := e.path("gitit")
	port, err := freePort()
	if err != nil {
		return err
	}
	g.port = port
	conf := fmt.Sprintf(gititConf, port, filepath.Join(dir, "wikidata"), filepath.Join(dir, "gitit-users"),
		filepath.Join(dir, "static"), filepath.Join(dir, "templates"), filepath.Join(dir, "gitit.log"),
		filepath.Join(dir, "cache"))
	confPath := filepath.Join(dir, "gitit.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "static"), 0o755); err != nil {
		return err
	}
	// Gitit serves its static directory at the root, robots.txt too.
	if err := os.WriteFile(filepath.Join(dir, "static", "robots.txt"), []byte(gititRobots), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(e.path("log"), 0o755); err != nil {
		return err
	}
	p, err := e.lab.startProc("gitit", e.path("log", "gitit.out"), []string{"HOME=" + dir}, "/usr/bin/gitit", "-f", confPath)
	if err != nil {
		return err
	}
	c := &http.Client{Timeout: 10 * time.Second}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	return waitFor(ctx, p, 60*time.Second, func() error {
		resp, err := c.Get("http://" + addr + "/robots.txt")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("gitit: HTTP %d", resp.StatusCode)
		}
		return nil
	})
}

// gititPage is one wiki page: its name and Markdown text.
type gititPage struct{ name, text string }

func (g *gitit) load(ctx context.Context, e *env) ([]Record, error) {
	// First start: gitit creates the repository with its Front Page, Help
	// and User's Guide, its static files and templates.
	if err := g.serve(ctx, e); err != nil {
		return nil, err
	}
	repo := e.path("gitit", "wikidata")
	seen := map[string]bool{}
	var recs []Record
	var pages []gititPage
	byTopic := map[string][]string{}
	taken := map[string]bool{"Front Page": true, "Help": true}
	for _, t := range gititTopics {
		taken[t] = true
	}
	for _, topic := range gititTopics {
		glosses, err := readGlosses(e.data, topic)
		if err != nil {
			return nil, err
		}
		for _, gl := range glosses {
			if seen[gl.ID] {
				continue // a synset of two topics has one page
			}
			seen[gl.ID] = true
			name := gititName(gl.Lemmas[0])
			if name == "" {
				continue
			}
			for n := 2; taken[name]; n++ {
				name = fmt.Sprintf("%s (%d)", gititName(gl.Lemmas[0]), n)
			}
			taken[name] = true
			var cats []string
			for _, t := range gl.Topics {
				if slices.Contains(gititTopics, t) {
					cats = append(cats, gititCategory(t))
					byTopic[t] = append(byTopic[t], name)
				}
			}
			var b strings.Builder
			fmt.Fprintf(&b, "---\ncategories: %s\n...\n\n", strings.Join(cats, ", "))
			fmt.Fprintf(&b, "**%s** *(%s)*: %s\n\n", mdEscape(name), gl.POS, mdEscape(gl.Gloss))
			if len(gl.Lemmas) > 1 {
				fmt.Fprintf(&b, "- Synonyms: %s\n", mdEscape(strings.Join(gl.Lemmas, ", ")))
			}
			fmt.Fprintf(&b, "- WordNet synset: %s\n", gl.ID)
			for _, t := range gl.Topics {
				if slices.Contains(gititTopics, t) {
					fmt.Fprintf(&b, "- Topic: [%s](%s)\n", t, gititPath(t))
				}
			}
			pages = append(pages, gititPage{name, b.String()})
			recs = append(recs, Record{Backend: g.backend(), ID: gl.ID, Title: name, Path: gititPath(name),
				Text: strings.Join(gl.Lemmas, " ") + " " + gl.Gloss})
		}
	}
	if len(recs) == 0 {
		return nil, errors.New("no mythology glosses in the shared data")
	}
	// A page per topic lists its entries; the front page links the topics.
	var front strings.Builder
	fmt.Fprintf(&front, "# Lab Mythology Wiki\n\nThis wiki holds %d entries of Greek, Norse and Roman mythology with "+
		"their definitions from WordNet 3.0. Search them with the search box, browse [all pages](/_index), or "+
		"start from a mythology:\n\n", len(recs))
	for _, t := range gititTopics {
		names := byTopic[t]
		if len(names) == 0 {
			continue
		}
		slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
		var b strings.Builder
		fmt.Fprintf(&b, "%d entries of %s (also the category [%s](/_category/%s)):\n\n", len(names), t,
			gititCategory(t), gititCategory(t))
		for _, n := range names {
			fmt.Fprintf(&b, "- [%s](%s)\n", mdEscape(n), gititPath(n))
		}
		pages = append(pages, gititPage{t, b.String()})
		fmt.Fprintf(&front, "- [%s](%s) (%d entries)\n", t, gititPath(t), len(names))
	}
	fmt.Fprintf(&front, "\nElsewhere in the lab: [the lab hub](%s).\n", e.lab.URL(Hub, "/"))
	pages = append(pages, gititPage{"Front Page", front.String()})
	for _, p := range pages {
		if err := os.WriteFile(filepath.Join(repo, p.name+".page"), []byte(p.text), 0o644); err != nil {
			return nil, err
		}
	}
	// The User's Guide is about installing gitit, not this wiki's subject.
	who := []string{"GIT_AUTHOR_NAME=Lab Loader", "GIT_AUTHOR_EMAIL=loader@" + gititHost,
		"GIT_COMMITTER_NAME=Lab Loader", "GIT_COMMITTER_EMAIL=loader@" + gititHost}
	for _, args := range [][]string{
		{"rm", "--quiet", "--ignore-unmatch", "Gitit User’s Guide.page"},
		{"add", "--all"},
		{"commit", "--quiet", "-m", fmt.Sprintf("Add %d mythology entries from WordNet 3.0", len(recs))},
	} {
		if _, err := e.run(ctx, repo, who, "git", args...); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// gititName is a page name for a lemma: gitit takes any name, but a page's
// file name may not hold a slash.
func gititName(lemma string) string {
	return strings.TrimSpace(strings.NewReplacer("/", " ", "_", " ").Replace(lemma))
}

// gititCategory is a topic as a gitit category (categories are separated by
// spaces or commas): "Greek mythology" -> "Greek-mythology".
func gititCategory(topic string) string { return strings.ReplaceAll(topic, " ", "-") }

// gititPath is the path gitit links a page with: spaces and other bytes
// outside URI characters percent-encoded in lower case, "'" and parentheses
// kept (as its index and search result links show).
func gititPath(name string) string {
	const keep = "-._~!$&'()*+,;=:@/"
	var b strings.Builder
	b.WriteByte('/')
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

// mdEscape keeps text from being read as Markdown markup.
func mdEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
		"<", `\<`, ">", `\>`, "#", `\#`).Replace(s)
}

// vhost proxies the host to gitit: it serves everything itself, robots.txt
// included.
func (g *gitit) vhost(e *env) string {
	return fmt.Sprintf(`  proxy.server = ("" => (("host" => "127.0.0.1", "port" => %d)))
`, g.port)
}

func (g *gitit) pages(recs []Record) []string {
	r := pick(recs, 1)[0]
	return []string{
		"/",
		r.Path,
		"/_search?patterns=" + queryWord(r),
		"/_index",
		"/_login",
		"/_register",
		"/_resetPassword",
	}
}

func (g *gitit) label(f *Form) formLabel {
	fields := fieldSet(f)
	switch {
	case textField(f, "patterns"):
		// every result on one page: no pagination
		return formLabel{Kind: "search", Backend: g.backend(), QueryField: "patterns", PageControl: "none"}
	case fields["gotopage"]:
		// "Go to page": a page name, redirected to the page (or a search
		// when no page has the name)
		return formLabel{Kind: "navigation"}
	case fields["password2"] && fields["username"]:
		return formLabel{Kind: "registration"}
	case fields["username"] && fields["password"]:
		return formLabel{Kind: "login"}
	case fields["username"] && fields["resetPassword"]:
		return formLabel{Kind: "password"}
	case fields["editedText"], fields["file"] && fields["wikiname"]:
		// the page editor and the file upload (both need a login)
		return formLabel{Kind: "edit"}
	}
	return formLabel{Kind: "other"}
}
