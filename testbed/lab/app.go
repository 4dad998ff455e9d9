package lab

import (
	"context"
	"os/exec"
	"strings"
)

// app is one web application of the lab.
type app interface {
	info() appInfo
	// start starts what the application needs besides the web server (a
	// database server), before load.
	start(ctx context.Context, e *env) error
	// load fills the application with its records through its own tools.
	load(ctx context.Context, e *env) ([]Record, error)
	// vhost is the lighttpd configuration inside the application's
	// $HTTP["host"] block.
	vhost(e *env) string
	// pages lists the paths the truth visits (home, search results, login,
	// a record page…), given the records loaded.
	pages(recs []Record) []string
	// label says what a form the application served is (see formRule).
	label(f *Form) formLabel
}

// appInfo names an application and what it needs.
type appInfo struct {
	Name    string // "mediawiki"
	Host    string // "wiki.lab.test"
	Title   string // shown on the hub
	Package string // the Debian package whose version the truth reports
	Data    string // what it holds, said on the hub and in the truth
	Needs   []need
}

// formLabel is the ground-truth kind of a form and, for a searchable one, what
// stands behind it.
type formLabel struct {
	Kind       string // search, login, registration, password, comment, edit, other
	Backend    string // records key behind a searchable form
	QueryField string // the text input the query goes in
	PageParam  string // the URL parameter of the result pages' pagination
	// PageControl is how a result page reaches the next: "link" (an <a>
	// carrying PageParam) or "button" (a submit button of the result form
	// named PageParam, with the page number as value).
	PageControl string
	PageSize    int // results per result page
}

// allApps are the lab's applications, in start order.
func allApps() []app {
	return []app{&mediawiki{}, &wordpress{}, &dokuwiki{}, &cgit{}, &omega{}, &htdig{}, &namazu{}, &swish{}, &gitweb{}, &redmine{}, &gitit{}, &phpmyadmin{}}
}

// packageVersion is the installed version of a Debian package, "" if unknown.
func packageVersion(pkg string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
