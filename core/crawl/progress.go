package crawl

// Keys of the engine's progress in store.TagCrawl: the first byte says what
// a record is.
const (
	reverseTargetKey = 't' // + site key: a site reverse search asked about (reverseQuery)
	reverseRoundKey  = 'r' // + AppendUint64(round): a finished reverse-search round (reverseRound)
	learnExampleKey  = 'x' // + AppendString(space) + id: an example of the adaptive learner (learnExample)
	sitemapSiteKey   = 's' // + site: the number of sitemap URLs counted for the site (sitemapCount)
)
