package form

import (
	"context"
	"testing"
)

func TestLoadFormasaurus(t *testing.T) {
	ex, st := formasaurus(t)
	// 2,168 forms on 757 pages; 392 search and 853 other labelled forms.
	if st.Pages != 757 || len(st.Mismatched) != 0 {
		t.Errorf("pages %d, mismatched %v", st.Pages, st.Mismatched)
	}
	if st.Forms+st.Skipped != 2168 || st.Forms != 1245 {
		t.Errorf("forms %d + skipped %d", st.Forms, st.Skipped)
	}
	search := 0
	hosts := map[string]bool{}
	for i := range ex {
		if ex[i].Searchable() {
			search++
		}
		hosts[ex[i].Host] = true
		if ex[i].Host == "" {
			t.Fatalf("%s has no host", ex[i].File)
		}
	}
	if search != 392 {
		t.Errorf("%d search forms, want 392", search)
	}
	t.Logf("%d forms on %d hosts", len(ex), len(hosts))
}

// TestDefaultOnFormasaurus scores the embedded model on its own training
// data: a sanity check of the embedding, not a generalisation figure (see
// TestCrossValidation).
func TestDefaultOnFormasaurus(t *testing.T) {
	ex, _ := formasaurus(t)
	r := Evaluate(mustDefault(t), ex)
	t.Logf("accuracy %.4f searchable F1 %.4f kind accuracy %.4f", r.Accuracy, r.Searchable.F1, r.KindAccuracy)
	if r.Accuracy < 0.96 || r.Searchable.F1 < 0.94 || r.KindAccuracy < 0.85 {
		t.Errorf("default model on its training data:\n%s", r.Text())
	}
}

// TestCrossValidation checks the generalisation target of the searchable
// form classifier with a grouped 5-fold cross-validation (the 10-fold
// figures are in the closing notes and `dwcrawl eval forms --cv 10`).
func TestCrossValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("long: cross-validation")
	}
	ex, _ := formasaurus(t)
	const seed = 3
	t.Logf("seed %d", seed)
	opt := DefaultTrainOptions(seed)
	opt.NoKinds = true
	r, err := CrossValidate(context.Background(), ex, 5, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("5-fold: accuracy %.4f searchable P %.3f R %.3f F1 %.4f", r.Accuracy, r.Searchable.Precision, r.Searchable.Recall, r.Searchable.F1)
	if r.Accuracy < 0.94 || r.Searchable.F1 < 0.90 {
		t.Errorf("below target:\n%s", r.Text())
	}
}
