package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// phpmyadmin is phpMyAdmin with cookie authentication against the lab's
// MariaDB (the server wordpress starts; without it the login page renders
// all the same and a login fails). It holds no records and has no search
// backend: it is the lab's site of real non-search forms, a language
// selector that reloads the page (options) and the login form. It runs from
// a copy of the Debian package's code whose vendor_config.php points its
// configuration into the lab, as dokuwiki's copy does.
type phpmyadmin struct{}

const pmaRoot = "/usr/share/phpmyadmin"

func (*phpmyadmin) info() appInfo {
	return appInfo{
		Name: "phpmyadmin", Host: "admin." + Domain, Title: "Lab Database Admin", Package: "phpmyadmin",
		Data: "no records: the administration of the lab's MariaDB, behind a login page with a language selector",
		Needs: []need{{pmaRoot + "/index.php", "phpmyadmin"}, {pmaRoot + "/libraries/vendor_config.php", "phpmyadmin"},
			{"/usr/lib/php/*/mysqli.so", "php-mysql"}},
	}
}

func (*phpmyadmin) start(context.Context, *env) error { return nil }

// pmaConfig is the lab's config.inc.php: cookie login to the lab's MariaDB
// over its unix socket, nothing that reaches the internet (no version
// check, no error reports), temporary files in the lab.
const pmaConfig = `<?php
// written by the dwcrawl lab
$cfg['blowfish_secret'] = sodium_hex2bin('%[1]s');
$i = 1;
$cfg['Servers'][$i]['verbose'] = 'Lab MariaDB';
$cfg['Servers'][$i]['auth_type'] = 'cookie';
$cfg['Servers'][$i]['host'] = 'localhost';
$cfg['Servers'][$i]['connect_type'] = 'socket';
$cfg['Servers'][$i]['socket'] = '%[2]s';
$cfg['Servers'][$i]['AllowNoPassword'] = false;
$cfg['TempDir'] = '%[3]s';
// sessions (one per visit of the login page) stay in the lab too
$cfg['SessionSavePath'] = '%[3]ssessions';
$cfg['UploadDir'] = '';
$cfg['SaveDir'] = '';
$cfg['VersionCheck'] = false;
$cfg['SendErrorReports'] = 'never';
$cfg['ShowGitRevision'] = false;
$cfg['CheckConfigurationPermissions'] = false;
$cfg['PmaNoRelation_DisableWarning'] = true;
$cfg['DefaultLang'] = 'en';
`

// pmaHeader is config.header.inc.php, the hook phpMyAdmin gives a site owner
// to put their own banner on every page (the login page too).
const pmaHeader = `<?php
// written by the dwcrawl lab
?>
<p class="text-center"><strong>Lab Database Admin</strong>: the administration of the dwcrawl lab's MariaDB.</p>
`

// pmaVendorPaths are the Debian paths of vendor_config.php that the lab's
// copy points into the lab directory.
var pmaVendorPaths = regexp.MustCompile(`'(configFile|tempDir)' => '[^']*'`)

func (p *phpmyadmin) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("phpmyadmin")
	app, tmp := filepath.Join(dir, "app"), filepath.Join(dir, "tmp")
	if _, err := e.run(ctx, dir, nil, "cp", "-a", pmaRoot, app); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(tmp, "sessions"), 0o700); err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "config.inc.php")
	vendor := filepath.Join(app, "libraries", "vendor_config.php")
	b, err := os.ReadFile(vendor)
	if err != nil {
		return nil, err
	}
	if n := len(pmaVendorPaths.FindAll(b, -1)); n != 2 {
		return nil, fmt.Errorf("%s: %d of configFile and tempDir found, want 2 (a phpMyAdmin this lab does not know)", vendor, n)
	}
	b = pmaVendorPaths.ReplaceAllFunc(b, func(m []byte) []byte {
		key := pmaVendorPaths.FindSubmatch(m)[1]
		to := conf
		if string(key) == "tempDir" {
			to = tmp + "/"
		}
		return fmt.Appendf(nil, "'%s' => '%s'", key, to)
	})
	if err := os.WriteFile(vendor, b, 0o644); err != nil {
		return nil, err
	}
	secret := make([]byte, 32) // sodium's secretbox key length, which cookie auth wants
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	for path, body := range map[string]string{
		conf: fmt.Sprintf(pmaConfig, hex.EncodeToString(secret), e.path("mariadb", "sock"), tmp+"/"),
		filepath.Join(app, "config.header.inc.php"): pmaHeader,
		// The package's robots.txt disallows everything; the lab's keeps
		// crawlers to the pages a visitor sees.
		filepath.Join(dir, "robots.txt"): "User-agent: *\nDisallow: /js/\nDisallow: /themes/\nDisallow: /doc/\n",
	} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (p *phpmyadmin) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  alias.url = ("/robots.txt" => %q)
  $HTTP["url"] =~ "^/(libraries|templates|sql|locale|vendor)/" { url.access-deny = ("") }
`, e.path("phpmyadmin", "app"), e.path("phpmyadmin", "robots.txt"))
}

// pages are the login page in English and in German (the language the
// selector switches to), both with the selector and the login form.
func (p *phpmyadmin) pages([]Record) []string {
	return []string{"/", "/index.php?route=/&lang=de"}
}

func (p *phpmyadmin) label(f *Form) formLabel {
	fields := fieldSet(f)
	switch {
	case fields["pma_username"] && fields["pma_password"]:
		return formLabel{Kind: "login"}
	case fields["lang"] && !fields["pma_username"]:
		// the login page's language selector: choosing a language reloads
		// the page in it
		return formLabel{Kind: "options"}
	}
	return formLabel{Kind: "other"}
}
