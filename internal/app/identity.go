package app

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// ErrOtherCrawl is returned (wrapped, naming both crawls) when a crawl
// directory holds another profile's, strategy's or web's crawl.
var ErrOtherCrawl = errors.New("the directory holds another crawl")

// ContinueAsFlag is the command-line flag that continues a crawl directory
// recorded with another profile, strategy or web; named in the refusal.
const ContinueAsFlag = "--continue-as"

// profileHash is the SHA-256 of the resolved profile: any setting that
// changes the crawl changes it.
func profileHash(p *profile.Profile) string {
	b, err := json.Marshal(p)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// webIdentity names the web a crawl runs against: the real web, or a
// simulated web by seed, configuration and data (by content, not location:
// the same data seen from another working directory is the same web, while
// the shared data folder and the built-in data, which `run --testbed` picks
// by whether the folder is found, make different webs).
func webIdentity(w *simweb.Web) string {
	if w == nil {
		return "real web"
	}
	cfg := w.Config()
	cfg.Data = ""
	h := sha256.Sum256(cfg.JSON())
	return fmt.Sprintf("simweb seed %d config %s, %s", w.Config().Seed, hex.EncodeToString(h[:6]), w.DataID())
}

// dataOnly reports whether two simulated web identities differ in their
// data alone.
func dataOnly(have, want string) bool {
	h, _, ok1 := strings.Cut(have, ", ")
	w, _, ok2 := strings.Cut(want, ", ")
	return ok1 && ok2 && h == w && have != want
}

// sameWeb compares recorded and current web identities. Directories made
// before the data was part of it record "simweb seed N config H" alone:
// that matches any data.
func sameWeb(have, want string) bool {
	if have == want {
		return true
	}
	return strings.HasPrefix(have, "simweb ") && !strings.Contains(have, ", ") && strings.HasPrefix(want, have+", ")
}

// strategyOf is the strategy a crawl of s runs (as crawl.New decides it).
func strategyOf(s CrawlOptions) string {
	switch {
	case s.Strategy != "":
		return s.Strategy
	case s.Profile.Strategy != "":
		return s.Profile.Strategy
	}
	return crawl.SmartCrawler
}

// crawlIdentity is what the directory of a crawl of s records.
func crawlIdentity(s CrawlOptions) store.Identity {
	p := s.Profile
	return store.Identity{Kind: store.KindCrawl, Profile: p.Name, ProfileHash: profileHash(p), Domain: p.Domain,
		Strategy: strategyOf(s), Web: webIdentity(s.Web), Created: time.Now().UTC()}
}

// describe renders the parts of an identity a user recognises.
func describe(id store.Identity) string {
	return fmt.Sprintf("profile %s (domain %s), strategy %s, %s", id.Profile, id.Domain, id.Strategy, id.Web)
}

// checkCrawlDir compares the identity recorded in a crawl directory (have,
// ok) with the crawl want describes. Another profile, domain, strategy or
// web is refused unless force (--continue-as). record reports whether want
// must be recorded: a new directory, a forced change, or a changed profile
// of the same name and domain (a tuned threshold, only noted).
func checkCrawlDir(dir string, have store.Identity, ok bool, want store.Identity, force bool, log *slog.Logger) (record bool, err error) {
	if !ok || have.Profile == "" { // new, or made before identities were recorded
		return true, nil
	}
	var diffs []string
	for _, d := range [][3]string{
		{"profile", have.Profile, want.Profile},
		{"domain", have.Domain, want.Domain},
		{"strategy", have.Strategy, want.Strategy},
		{"web", have.Web, want.Web},
	} {
		if d[1] != d[2] && !(d[0] == "web" && sameWeb(d[1], d[2])) {
			diffs = append(diffs, fmt.Sprintf("%s %s → %s", d[0], d[1], d[2]))
		}
	}
	if len(diffs) > 0 && !force {
		why := ""
		if dataOnly(have.Web, want.Web) {
			why = " The simulated web is built from the shared data folder when one is found above the working directory (or named by $" +
				shareddata.EnvVar + "), from built-in data otherwise: run from where the crawl began."
		}
		return false, fmt.Errorf("crawl directory %s holds a crawl of %s; this run is %s: %w (%s).%s Give another --dir for a new crawl, or %s to continue this directory as this run",
			dir, describe(have), describe(want), ErrOtherCrawl, strings.Join(diffs, ", "), why, ContinueAsFlag)
	}
	switch {
	case len(diffs) > 0:
		log.Warn("continuing a crawl directory as another crawl", "dir", dir, "was", describe(have), "now", describe(want))
	case have.ProfileHash != want.ProfileHash:
		log.Info("the profile changed since this crawl began", "dir", dir, "profile", want.Profile)
	default:
		return false, nil
	}
	return true, nil
}

// openCrawlDir opens (or creates) the directory of the crawl s describes,
// refusing another kind of directory or another crawl (see checkCrawlDir)
// before anything in it is touched, and records the crawl's identity.
func openCrawlDir(s CrawlOptions) (*store.DB, error) {
	want := crawlIdentity(s)
	have, ok, err := store.PeekIdentity(s.Dir)
	if err != nil {
		return nil, err
	}
	if ok && have.Kind == store.KindCrawl { // another kind: store.Open says it
		if _, err := checkCrawlDir(s.Dir, have, ok, want, s.ContinueAs, s.Logger); err != nil {
			return nil, err
		}
	}
	db, err := store.Open(s.Dir, store.Options{NoSync: s.NoSync, Logger: s.Logger, Kind: store.KindCrawl})
	if err != nil {
		return nil, err
	}
	if err := recordCrawlIdentity(db, s, discard); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// recordCrawlIdentity checks the identity recorded in the open store db
// against the crawl s describes (see checkCrawlDir) and records it when
// new or changed: the same for a directory the crawl opens itself and for
// a store a caller (the server) shares with it.
func recordCrawlIdentity(db *store.DB, s CrawlOptions, log *slog.Logger) error {
	want := crawlIdentity(s)
	have, ok, err := db.Identity()
	if err != nil {
		return err
	}
	record, err := checkCrawlDir(s.Dir, have, ok, want, s.ContinueAs, log)
	if err != nil || !record {
		return err
	}
	if ok && have.Profile != "" {
		want.Created, want.Updated = have.Created, time.Now().UTC()
	} else if ok {
		want.Created = have.Created
	}
	return db.SetIdentity(want)
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))
