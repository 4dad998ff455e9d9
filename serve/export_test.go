package serve

import "github.com/dwcrawl/dwcrawl/store"

// Site reads a site record of a crawl through the server's shared store.
func (s *Server) Site(id, url string) (site store.Site, ok bool, err error) {
	j, found := s.get(KindCrawl, id)
	if !found {
		return site, false, notFound(KindCrawl, id)
	}
	_, err = j.read(func(db *store.DB) (err error) {
		site, ok, err = db.GetSite(url)
		return err
	})
	return site, ok, err
}
