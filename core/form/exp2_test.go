package form

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/shareddata"
)

func TestExpErrors(t *testing.T) {
	dir := filepath.Dir(shareddata.Path(t, "formasaurus", "index.json"))
	ex, _, _ := LoadFormasaurus(context.Background(), dir)
	labels := make([]string, len(ex))
	groups := make([]string, len(ex))
	for i := range ex {
		labels[i] = ex[i].Kind
		groups[i] = ex[i].Host
	}
	folds, _ := learn.GroupKFold(labels, groups, 10, 1)
	for _, test := range folds {
		var train []Example
		for _, i := range learn.TrainIndices(len(ex), test) {
			train = append(train, ex[i])
		}
		m, _ := TrainSFC(train, TreeOptions{})
		for _, i := range test {
			p, why := m.Prob(&ex[i].Form)
			if (p >= 0.5) != ex[i].Searchable() {
				f := &ex[i].Form
				var fs []string
				for _, fd := range f.Fields {
					fs = append(fs, fmt.Sprintf("%s/%s n=%q l=%q ph=%q v=%.20q", fd.Tag, fd.Type, fd.Name, fd.Label, fd.Placeholder, fd.Value))
				}
				t.Logf("\n%s %s p=%.2f %s %s %s id=%q cls=%q\n  fields: %s\n  submits: %q\n  text: %.100q\n  why: %s", ex[i].File, ex[i].Kind, p, f.Method, f.Action, f.Name, f.ID, f.Class, strings.Join(fs, " | "), f.Submits, f.Text, strings.Join(why, "; "))
			}
		}
	}
}
