package crawl

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"sync"

	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/siteclass"
	"github.com/dwcrawl/dwcrawl/store"
)

// Classifiers are the form and site classifiers of a crawl and what they
// were trained from.
type Classifiers struct {
	Forms *form.HIFI
	Sites *siteclass.Classifier
	// Topic says what the domain classifier of a custom domain was trained
	// from (nil for one of the twelve built-in domains); Cached reports
	// that it was read from the crawl directory instead.
	Topic  *form.TopicReport
	Cached bool
}

// Describe says in a few lines what the classifiers were trained from.
func (c *Classifiers) Describe() string {
	var b strings.Builder
	if c.Topic != nil {
		b.WriteString(c.Topic.String())
		if c.Cached {
			b.WriteString(" [from the crawl directory]")
		}
		b.WriteString("\n")
	} else {
		fmt.Fprintf(&b, "domain classifier: the embedded model's %q\n", c.Forms.Domain)
	}
	fmt.Fprintf(&b, "site classifier for %q trained from %s\n", c.Sites.Topic, c.Sites.Sources)
	return b.String()
}

// ProfileTopic is the custom topic of a profile: its keywords, form
// keywords, example forms and example pages (saved files; URLs are fetched
// with the seeds, see [NewClassifiers]).
func ProfileTopic(p *profile.Profile) (form.Topic, error) {
	t := form.Topic{
		Name:         p.Domain,
		Keywords:     append(append([]string{}, p.Keywords...), p.Site.Keywords...),
		FormKeywords: p.Forms.Keywords,
	}
	forms, err := form.LoadExampleForms(p.Forms.Examples)
	if err != nil {
		return t, fmt.Errorf("%s: forms.examples: %w", p.Path, err)
	}
	t.Forms = forms
	for _, ex := range p.Examples {
		if isURL(ex) {
			continue
		}
		pg, err := form.LoadExamplePage(ex)
		if err != nil {
			return t, fmt.Errorf("%s: examples: %w", p.Path, err)
		}
		t.Pages = append(t.Pages, pg)
	}
	return t, nil
}

func isURL(s string) bool { return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") }

// TopicURLs are the pages fetched to train a custom topic: the profile's
// example URLs, then the seeds' homepages.
func TopicURLs(p *profile.Profile, seeds []string) []string {
	var out []string
	for _, ex := range p.Examples {
		if isURL(ex) {
			out = append(out, ex)
		}
	}
	return append(out, seeds...)
}

// FetchTopicPages fetches pages for a custom topic's training through the
// crawl's fetcher (robots, politeness and address policy apply), a few at
// a time; pages that fail are left out and counted. The pages come in the
// order of urls, whatever order the fetches end in, so that training (and a
// --seed-run crawl) does not depend on timing. keywords choose what a
// directory page teaches (topicText).
func FetchTopicPages(ctx context.Context, f Fetcher, urls, keywords []string) (pages []form.TopicPage, failed int) {
	got := make([]form.TopicPage, len(urls))
	ok := make([]bool, len(urls))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, u := range urls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			pg, err := fetchTopicPage(ctx, f, u, keywords)
			got[i], ok[i] = pg, err == nil
		}()
	}
	wg.Wait()
	for i := range got {
		if !ok[i] {
			failed++
			continue
		}
		pages = append(pages, got[i])
	}
	return pages, failed
}

func fetchTopicPage(ctx context.Context, f Fetcher, u string, keywords []string) (form.TopicPage, error) {
	resp, err := f.Fetch(ctx, u)
	if err != nil {
		return form.TopicPage{}, err
	}
	base, err := url.Parse(resp.URL)
	if err != nil || resp.URL == "" {
		base, _ = url.Parse(u)
	}
	p, err := page.Parse(resp.Body, "text/html; charset=utf-8", base)
	if err != nil {
		return form.TopicPage{}, err
	}
	if isDirectory(p) {
		// a directory's entries are about many topics (topicText)
		return form.TopicPage{Source: u, Text: topicText(resp.Body, p, keywords)}, nil
	}
	return form.TopicPage{Source: u, Title: p.Title, Text: p.Text}, nil
}

// NewClassifiers builds the form and site classifiers of profile p. For one
// of the twelve built-in domains: the embedded form model and a site
// classifier trained from the profile's keywords. For a custom domain both
// are trained from the profile ([ProfileTopic]) and from the pages of urls
// (example URLs and seed homepages), fetched with f only when the form
// model is not already in db (the crawl directory; may be nil) for the same
// profile content, seeds and model.
func NewClassifiers(ctx context.Context, p *profile.Profile, f Fetcher, urls []string, db *store.DB, seed uint64) (*Classifiers, error) {
	model, err := form.Default()
	if err != nil {
		return nil, fmt.Errorf("crawl: loading the form classifier: %w", err)
	}
	kw := append(append(append([]string{}, p.Keywords...), p.Site.Keywords...), p.Forms.Keywords...)
	c := &Classifiers{}
	var homepages []string
	if p.Custom() {
		t, err := ProfileTopic(p)
		if err != nil {
			return nil, err
		}
		var fetched []form.TopicPage
		pages := func() []form.TopicPage {
			if f != nil {
				fetched, _ = FetchTopicPages(ctx, f, urls, kw)
			}
			return fetched
		}
		var cache learn.BlobStore
		if db != nil {
			cache = modelStore{db}
		}
		if model, c.Topic, c.Cached, err = form.TopicModel(model, t, strings.Join(urls, " "), pages, seed, cache); err != nil {
			return nil, fmt.Errorf("crawl: training the form classifier for %q: %w", p.Domain, err)
		}
		for _, pg := range append(t.Pages, fetched...) {
			homepages = append(homepages, pg.Title+" "+pg.Text)
		}
	}
	if c.Forms, err = form.NewHIFI(model, p.Domain); err != nil {
		return nil, fmt.Errorf("crawl: form classifier for domain %q: %w", p.Domain, err)
	}
	if c.Sites, err = siteclass.Train(p.Domain, homepages, kw, siteclass.Options{}); err != nil {
		return nil, fmt.Errorf("crawl: training the site classifier: %w", err)
	}
	return c, nil
}

// modelStore keeps models in the crawl directory's models table.
type modelStore struct{ db *store.DB }

func (m modelStore) PutModel(name string, b []byte) error {
	_, err := m.db.PutModel(store.Model{Name: name, Data: b})
	return err
}

func (m modelStore) GetModel(name string) ([]byte, error) {
	r, ok, err := m.db.GetModel(name)
	if err == nil && !ok {
		err = fs.ErrNotExist
	}
	return r.Data, err
}

// Preload starts decoding the bundled form model in the background, so
// that NewClassifiers finds it ready: a start-up loads the profile, the
// store (and a simulated web) meanwhile on another core.
func Preload() { go form.Default() }
