package lab

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// gitRepo is one git repository of the lab and its records, one commit each
// (the lab's git front ends, cgit and gitweb, share it).
type gitRepo struct {
	name, desc string
	commits    []gitCommit
}

// gitCommit is one record as a commit: its message (subject and body) and
// the one file it adds.
type gitCommit struct {
	id, subject, body, path, content string
	when                             time.Time
}

// importRepo writes a bare repository with git fast-import, each commit by
// "Lab Loader <email>", and returns the commit id of each mark (1-based, in
// r.commits order).
func importRepo(ctx context.Context, e *env, path, email string, r gitRepo) (map[int]string, error) {
	if _, err := e.run(ctx, e.dir, nil, "git", "init", "--quiet", "--bare", "--initial-branch=master", path); err != nil {
		return nil, err
	}
	stream := path + ".fi"
	f, err := os.Create(stream)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	data := func(s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }
	for i, cm := range r.commits {
		who := fmt.Sprintf("Lab Loader <%s> %d +0000", email, cm.when.Unix())
		fmt.Fprintf(w, "commit refs/heads/master\nmark :%d\nauthor %s\ncommitter %s\n", i+1, who, who)
		data(cm.subject + "\n\n" + cm.body + "\n")
		if i > 0 {
			fmt.Fprintf(w, "from :%d\n", i)
		}
		fmt.Fprintf(w, "M 100644 inline %s\n", cm.path)
		data(cm.content)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	marksFile := path + ".marks"
	if _, err := e.run(ctx, path, nil, "sh", "-c", `git fast-import --quiet --export-marks="$1" < "$2"`,
		"sh", marksFile, stream); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(marksFile)
	if err != nil {
		return nil, err
	}
	marks := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var n int
		var sha string
		if _, err := fmt.Sscanf(line, ":%d %s", &n, &sha); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", marksFile, line, err)
		}
		marks[n] = sha
	}
	os.Remove(stream)
	return marks, nil
}
