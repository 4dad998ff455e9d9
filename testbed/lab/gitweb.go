package lab

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// gitweb is git's own web front end (the Perl CGI of the Debian package
// gitweb) over one bare repository, glossary.git, whose history holds one
// commit per WordNet gloss of computing, mathematics and statistics: the term
// is the commit subject, its gloss the body, written with git fast-import as
// for cgit. Its commit search (a=search, st=commit: git log --grep over the
// messages) pages with a "next" link (pg=), 100 commits a page.
type gitweb struct{}

const (
	gitwebCGI    = "/usr/share/gitweb/gitweb.cgi"
	gitwebStatic = "/usr/share/gitweb/static"
	// gitwebProject is the one repository, as gitweb names it (p=).
	gitwebProject = "glossary.git"
	// gitwebPageSize is what gitweb's search shows a page: it asks git for
	// 101 commits from 100*pg and links "next" when the 101st exists.
	gitwebPageSize = 100
)

// gitwebTopics are the WordNet topic domains of the glossary.
var gitwebTopics = []string{"computer science", "mathematics", "statistics"}

func (*gitweb) info() appInfo {
	return appInfo{
		Name: "gitweb", Host: "source." + Domain, Title: "Lab Glossary Source", Package: "gitweb",
		Data: "WordNet 3.0 glosses of the topics " + strings.Join(gitwebTopics, ", ") +
			" (corpora/wordnet-glosses.jsonl): one commit per synset in the repository " + gitwebProject,
		Needs: []need{{gitwebCGI, "gitweb"}, {gitwebStatic + "/gitweb.css", "gitweb"}, {"/usr/bin/git", "git"}},
	}
}

func (*gitweb) backend() string { return "source." + Domain + "/glossary" }

// projectsBackend holds the repositories, what the project list's filter
// searches.
func (*gitweb) projectsBackend() string { return "source." + Domain + "/projects" }

func (*gitweb) start(context.Context, *env) error { return nil }

// gitwebConf is the GITWEB_CONFIG (Perl) the CGI reads instead of
// /etc/gitweb.conf. Its arguments: the project root, the hub's URL, the
// footer file, the temporary directory.
//
// Everything gitweb links to is the lab's: the logo links to the hub instead
// of git-scm.com, avatars (gravatar) stay off as by default, and no clone
// URLs are shown. $my_uri is "/" because lighttpd runs the CGI as the index
// of the host: its links then read /?p=…, not /gitweb.cgi?p=…. Search is
// enabled with grep (over the files at HEAD) and pickaxe (over the diffs):
// gitweb's search box offers both types whatever the configuration says,
// and a type switched off only answers 403.
const gitwebConf = `# written by the dwcrawl lab
$projectroot = %q;
$projects_list = $projectroot;
$site_name = "Lab Glossary Source";
$home_link_str = "projects";
$my_uri = "/";
$home_link = "/";
@stylesheets = ("/static/gitweb.css");
$javascript = "/static/gitweb.js";
$logo = "/static/git-logo.png";
$favicon = "/static/git-favicon.png";
$logo_url = %q;
$logo_label = "dwcrawl lab";
$site_footer = %q;
$git_temp = %q;
@git_base_url_list = ();
$default_projects_order = "project";
$feature{'search'}{'default'} = [1];
$feature{'grep'}{'default'} = [1];
$feature{'pickaxe'}{'default'} = [1];
$feature{'avatar'}{'default'} = [''];
$feature{'snapshot'}{'default'} = [];
`

func (g *gitweb) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("gitweb")
	repo, err := glossaryRepo(e.data)
	if err != nil {
		return nil, err
	}
	repos := filepath.Join(dir, "repos")
	path := filepath.Join(repos, gitwebProject)
	marks, err := importRepo(ctx, e, path, "loader@source."+Domain, repo)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", gitwebProject, err)
	}
	// What gitweb's project list shows: description and owner.
	if err := os.WriteFile(filepath.Join(path, "description"), []byte(repo.desc+"\n"), 0o644); err != nil {
		return nil, err
	}
	if _, err := e.run(ctx, path, nil, "git", "config", "gitweb.owner", "dwcrawl lab"); err != nil {
		return nil, err
	}
	// Not in the project root: gitweb lists what it finds there.
	for _, f := range []string{path + ".marks"} {
		if err := os.Rename(f, filepath.Join(dir, filepath.Base(f))); err != nil {
			return nil, err
		}
	}
	recs := []Record{{Backend: g.projectsBackend(), ID: gitwebProject, Title: gitwebProject,
		Path: "/?p=" + gitwebProject + ";a=summary", Text: gitwebProject + " " + repo.desc}}
	for i, cm := range repo.commits {
		sha := marks[i+1]
		if sha == "" {
			return nil, fmt.Errorf("repository %s: no commit for record %s", gitwebProject, cm.id)
		}
		recs = append(recs, Record{Backend: g.backend(), ID: cm.id, Title: cm.subject,
			Path: gitwebCommitPath(sha), Text: cm.subject + " " + cm.body})
	}
	footer := filepath.Join(dir, "footer.html")
	if err := os.WriteFile(footer, []byte(fmt.Sprintf("<div class=\"page_footer_text\">Lab Glossary Source, part of the <a href=\"%s\">dwcrawl lab</a>.</div>\n",
		e.lab.URL(Hub, "/"))), 0o644); err != nil {
		return nil, err
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	conf := fmt.Sprintf(gitwebConf, repos, e.lab.URL(Hub, "/"), footer, tmp)
	if err := os.WriteFile(filepath.Join(dir, "gitweb.conf"), []byte(conf), 0o644); err != nil {
		return nil, err
	}
	www := filepath.Join(dir, "www")
	if err := os.MkdirAll(www, 0o755); err != nil {
		return nil, err
	}
	for name, target := range map[string]string{"gitweb.cgi": gitwebCGI, "static": gitwebStatic} {
		if err := os.Symlink(target, filepath.Join(www, name)); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(www, "robots.txt"), []byte("User-agent: *\nAllow: /\n"), 0o644); err != nil {
		return nil, err
	}
	return recs, nil
}

// gitwebCommitPath is a commit's page as gitweb's own result entries link
// it (parameters separated by ";", gitweb's default).
func gitwebCommitPath(sha string) string {
	return "/?p=" + gitwebProject + ";a=commit;h=" + sha
}

// glossaryRepo is the glossary's history: one commit per synset of the
// topics (a synset of two topics once), in the order of its term, the term
// the subject and the gloss the body, the term's text file the change.
func glossaryRepo(data string) (gitRepo, error) {
	r := gitRepo{name: "glossary", desc: "Glossary of computer science, mathematics and statistics: one commit per term (WordNet 3.0)"}
	var gs []gloss
	topic := map[string]string{}
	for _, t := range gitwebTopics {
		part, err := readGlosses(data, t)
		if err != nil {
			return r, err
		}
		for _, g := range part {
			if _, ok := topic[g.ID]; !ok {
				topic[g.ID] = t
				gs = append(gs, g)
			}
		}
	}
	slices.SortFunc(gs, func(a, b gloss) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Lemmas[0]), strings.ToLower(b.Lemmas[0])), strings.Compare(a.ID, b.ID))
	})
	t0 := time.Date(2016, 1, 4, 9, 0, 0, 0, time.UTC)
	files := map[string]bool{}
	for i, g := range gs {
		term := strings.ReplaceAll(g.Lemmas[0], "_", " ")
		slug := dwID(term)
		if slug == "" {
			slug = strings.ToLower(g.ID)
		}
		dir := strings.ReplaceAll(topic[g.ID], " ", "-")
		path := dir + "/" + slug + ".txt"
		for n := 2; files[path]; n++ {
			path = fmt.Sprintf("%s/%s_%d.txt", dir, slug, n)
		}
		files[path] = true
		// The message is the term and its gloss only: a line common to
		// every commit (a synset trailer) would be a query that lists the
		// whole history. The file says the rest.
		content := term + " (" + g.POS + ")\n\n" + g.Gloss + "\n"
		if len(g.Lemmas) > 1 {
			content += "\nSynonyms: " + strings.Join(g.Lemmas[1:], ", ") + "\n"
		}
		content += "\nWordNet 3.0 synset " + g.ID + "\n"
		r.commits = append(r.commits, gitCommit{
			id: g.ID, subject: term, body: g.Gloss, path: path, content: content, when: t0.Add(time.Duration(i) * time.Hour),
		})
	}
	return r, nil
}

func (g *gitweb) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  index-file.names = ("gitweb.cgi")
  setenv.add-environment = ("GITWEB_CONFIG" => %q)
  cgi.assign = (".cgi" => "")
`, e.path("gitweb", "www"), e.path("gitweb", "gitweb.conf"))
}

func (g *gitweb) pages(recs []Record) []string {
	r := pick(recs, 1)[0]
	p := "/?p=" + gitwebProject
	return []string{
		"/",                           // the project list, with its project filter
		"/?a=project_list;s=glossary", // a filtered project list
		p + ";a=summary",              // the summary, where the commit search is
		p + ";a=shortlog",
		p + ";a=search;h=HEAD;st=commit;s=" + queryWord(r),
		r.Path,
		p + ";a=search_help",
	}
}

func (g *gitweb) label(f *Form) formLabel {
	fields := fieldSet(f)
	switch {
	case !textField(f, "s"):
		return formLabel{Kind: "other"}
	case hiddenValue(f, "a") == "project_list":
		// The project list's filter: a real search over the projects' names
		// and descriptions (their list is what it returns, unpaged), with the
		// lab's one project behind it, as cgit's index filter has its two.
		return formLabel{Kind: "search", Backend: g.projectsBackend(), QueryField: "s"}
	case hiddenValue(f, "a") == "search" && fields["p"]:
		// The project's search box, on every page of the project: with its
		// default type (st=commit) git log --grep over the messages, from
		// the commit in its hidden h (HEAD on the summary; the commit shown
		// on a commit page, whose search then covers its ancestors only).
		return formLabel{Kind: "search", Backend: g.backend(), QueryField: "s", PageParam: "pg", PageSize: gitwebPageSize}
	}
	return formLabel{Kind: "other"}
}

// hiddenValue is the value of a form's field name ("" when absent).
func hiddenValue(f *Form, name string) string {
	for _, x := range f.Fields {
		if x.Name == name {
			return x.Value
		}
	}
	return ""
}
