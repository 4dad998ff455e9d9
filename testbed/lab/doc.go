// Package lab runs the lab of real web software: web applications installed
// from Debian packages (MediaWiki on SQLite, WordPress on MariaDB, DokuWiki,
// cgit, Xapian's Omega search CGI), filled with real records from the shared
// data (vega movies, cars and airports, DBLP papers, WordNet glosses) through each application's own import tools,
// and served by one lighttpd on a loopback port with one name-based virtual
// host per application, linked into a small web with static sites (a hub and
// real Formasaurus pages).
//
// simweb proves the algorithms on a web we generated; the lab proves the
// real-web path on markup, search forms, result pages and pagination that no
// one here wrote. The lab writes its own ground truth: every page it knows,
// the forms on it (action, method, fields) labeled by kind (search, login,
// registration, comment, edit, …) from what each application is known to
// serve, and the records behind each searchable form.
//
// Start loads what is not loaded yet (loading is done once per directory),
// starts the daemons and returns the host → address map and the truth; Close
// stops every process it started. Where a package is missing, Start returns a
// *MissingError naming it (tests skip on it), or leaves one application out
// and says why in Lab.Missing. install.sh installs the packages with apt-get.
package lab
