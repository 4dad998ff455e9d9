package form

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/shareddata"
)

func TestExpCV(t *testing.T) {
	dir := filepath.Dir(shareddata.Path(t, "formasaurus", "index.json"))
	ex, _, err := LoadFormasaurus(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, kt := range []bool{false, true} {
		for seed := uint64(1); seed <= 4; seed++ {
			o := DefaultTrainOptions(seed)
			o.Kinds.Tokens = kt
			r, err := CrossValidate(context.Background(), ex, 10, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("kindTokens=%v seed %d: acc %.4f F1 %.4f P %.3f R %.3f | kind acc %.4f macroF1 %.4f", kt, seed, r.Accuracy, r.Searchable.F1, r.Searchable.Precision, r.Searchable.Recall, r.KindAccuracy, r.KindMacroF1)
		}
	}
}
