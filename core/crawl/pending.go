package crawl

// TEMPORARY scaffolding until core/rank's learner and ACHE classifier land.

type learner struct{}

func newLearner(e *Engine, r *rankers) (*learner, error)                { return &learner{}, nil }
func (l *learner) deepSite(site, anchors, around, homeText string) bool { return false }
func (l *learner) formPage(u, anchor, around string) bool               { return false }

func newACHEPolicy(e *Engine) linkPolicy { return &bestFirstPolicy{} }
