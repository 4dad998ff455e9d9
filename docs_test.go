package dwcrawl_test

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines keeps the README a front page (issue 33): guides go in docs/.
const readmeMaxLines = 150

// arriving are guides another branch writes; links to them may precede the
// merge that brings them. Once they exist they are checked like any other.
var arriving = map[string]bool{
	"docs/rendering.md":  true,
	"docs/interfaces.md": true,
}

func TestREADMELength(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(string(b), "\n")
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	if n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail into a guide in docs/", n, readmeMaxLines)
	}
}

// mdLink matches inline Markdown links and images: [text](target "title").
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestDocLinks checks that every relative link in README.md,
// CONTRIBUTING.md and docs/*.md names a file of the repository and, when it
// has a #fragment into a Markdown file, one of that file's headings.
func TestDocLinks(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{"README.md", "CONTRIBUTING.md"}, docs...)
	checked := 0
	for _, file := range files {
		for _, l := range links(t, file) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			target, frag, _ := strings.Cut(l.target, "#")
			resolved := file
			if target != "" {
				resolved = path.Join(path.Dir(file), target)
			}
			checked++
			if _, err := os.Stat(filepath.FromSlash(resolved)); err != nil {
				if arriving[resolved] {
					t.Logf("%s:%d: %s does not exist yet (arriving from another branch)", file, l.line, resolved)
					continue
				}
				t.Errorf("%s:%d: link %q: %s does not exist", file, l.line, l.target, resolved)
				continue
			}
			if frag != "" && strings.HasSuffix(resolved, ".md") && !anchors(t, resolved)[frag] {
				t.Errorf("%s:%d: link %q: %s has no heading #%s", file, l.line, l.target, resolved, frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d relative links: is the test run from the repository root?", checked)
	}
}

type link struct {
	line   int
	target string
}

// links returns the Markdown links of file outside fenced code blocks.
func links(t *testing.T, file string) []link {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []link
	fenced := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(text), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			out = append(out, link{line: n, target: m[1]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return out
}

// anchors returns the GitHub-style anchors of a Markdown file's headings.
func anchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		out[slug(strings.TrimLeft(line, "#"))] = true
	}
	return out
}

// slug is GitHub's heading anchor: lower case, punctuation dropped except
// '-' and '_', spaces made '-'.
func slug(heading string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			sb.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Budgets and settings", "budgets-and-settings"},
		{" `--explain`", "--explain"},
		{"Harvest: from a topic to the data of its databases", "harvest-from-a-topic-to-the-data-of-its-databases"},
		{"The service: `dwcrawl serve`", "the-service-dwcrawl-serve"},
	} {
		if got := slug(c.heading); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}
