package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// wordpress is WordPress on MariaDB holding the DBLP papers, one post per
// paper, inserted with WordPress's own wp_insert_post by a PHP loader that
// runs inside WordPress (wp-load.php), after wp_install.
type wordpress struct{}

const wpRoot = "/usr/share/wordpress"

// wpShim is Debian's extension point (wp-config.php reads
// /etc/wordpress/config-$WORDPRESS_CONFIG.php): one static file that hands
// over to the configuration of whichever lab sets DWCRAWL_LAB_WP_CONFIG, so
// several labs can run at once.
const (
	wpShimPath = "/etc/wordpress/config-dwcrawl-lab.php"
	wpShim     = `<?php
// Installed by the dwcrawl lab (testbed/lab): each lab passes its own
// WordPress configuration in DWCRAWL_LAB_WP_CONFIG.
$dwcrawl_lab = isset($_SERVER['DWCRAWL_LAB_WP_CONFIG']) ? $_SERVER['DWCRAWL_LAB_WP_CONFIG'] : getenv('DWCRAWL_LAB_WP_CONFIG');
if (!$dwcrawl_lab || !is_file($dwcrawl_lab)) {
    header('HTTP/1.0 503 Service Unavailable');
    exit("dwcrawl lab: DWCRAWL_LAB_WP_CONFIG is not set or names no file\n");
}
require $dwcrawl_lab;
`
)

func (*wordpress) info() appInfo {
	return appInfo{
		Name: "wordpress", Host: "blog." + Domain, Title: "Lab Papers Blog", Package: "wordpress",
		Data: "DBLP papers (dblp/dblp_3881.csv): one post per paper",
		Needs: []need{{wpRoot + "/wp-load.php", "wordpress"},
			{"/usr/share/wordpress/wp-content/themes/twentytwentyone/style.css", "wordpress-theme-twentytwentyone"},
			{"/usr/sbin/mariadbd", "mariadb-server"}, {"/usr/bin/mariadb", "mariadb-client"},
			{"/usr/lib/php/*/mysqli.so", "php-mysql"}},
	}
}

func (*wordpress) backend() string { return "blog." + Domain + "/papers" }

// start runs MariaDB on a unix socket of the lab (no TCP port at all).
func (w *wordpress) start(ctx context.Context, e *env) error {
	dir := e.path("mariadb")
	data := filepath.Join(dir, "data")
	sock := filepath.Join(dir, "sock")
	if len(sock) > 100 {
		return fmt.Errorf("mariadb socket path %s is too long for a unix socket: use a shorter lab directory", sock)
	}
	if _, err := os.Stat(filepath.Join(data, "mysql")); err != nil {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		args := []string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"}
		if os.Geteuid() == 0 {
			args = append(args, "--user=root")
		}
		if _, err := e.run(ctx, dir, nil, "mariadb-install-db", args...); err != nil {
			return err
		}
	}
	args := []string{"--no-defaults", "--datadir=" + data, "--socket=" + sock, "--skip-networking",
		"--pid-file=" + filepath.Join(dir, "pid"), "--log-error=" + e.path("log", "mariadb.log"),
		"--innodb-buffer-pool-size=64M", "--skip-log-bin", "--innodb-flush-log-at-trx-commit=0",
		"--innodb-doublewrite=0", "--performance-schema=0"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	bin := "/usr/sbin/mariadbd"
	if p, err := lookEatmydata(); err == nil {
		args = append([]string{bin}, args...)
		bin = p
	}
	p, err := e.lab.startProc("mariadb", e.path("log", "mariadb.out"), nil, bin, args...)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, p, 60*time.Second, dialable("unix", sock)); err != nil {
		return fmt.Errorf("%w (log: %s)", err, e.path("log", "mariadb.log"))
	}
	_, err = e.run(ctx, dir, nil, "mariadb", "--no-defaults", "-S", sock, "-uroot", "-e",
		"CREATE DATABASE IF NOT EXISTS wordpress CHARACTER SET utf8mb4; "+
			"CREATE USER IF NOT EXISTS 'wordpress'@'localhost' IDENTIFIED BY 'lab-wordpress'; "+
			"GRANT ALL ON wordpress.* TO 'wordpress'@'localhost';")
	return err
}

const wpConfig = `<?php
// written by the dwcrawl lab
define('DB_NAME', 'wordpress');
define('DB_USER', 'wordpress');
define('DB_PASSWORD', 'lab-wordpress');
define('DB_HOST', 'localhost:%s');
$dwcrawl_host = isset($_SERVER['HTTP_HOST']) ? $_SERVER['HTTP_HOST'] : 'blog.lab.test';
define('WP_HOME', 'http://' . $dwcrawl_host);
define('WP_SITEURL', 'http://' . $dwcrawl_host);
// No update checks, no outbound requests, no cron on page views.
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('DISABLE_WP_CRON', true);
define('WP_DEBUG', false);
define('AUTH_KEY', '%[2]s-1'); define('SECURE_AUTH_KEY', '%[2]s-2'); define('LOGGED_IN_KEY', '%[2]s-3'); define('NONCE_KEY', '%[2]s-4');
define('AUTH_SALT', '%[2]s-5'); define('SECURE_AUTH_SALT', '%[2]s-6'); define('LOGGED_IN_SALT', '%[2]s-7'); define('NONCE_SALT', '%[2]s-8');
`

// wpLoader installs the blog and inserts the posts through WordPress's API;
// it prints the post id of every record as JSON.
const wpLoader = `<?php
// dwcrawl lab loader: php load.php RECORDS.jsonl HUB_URL
$_SERVER['HTTP_HOST'] = 'blog.lab.test';
define('WP_INSTALLING', true);
function wp_mail() { return true; } // no mail server in the lab
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
$r = wp_install('Lab Papers Blog', 'admin', 'admin@blog.lab.test', true, '', 'Lab-admin-pass-1');
update_option('blogdescription', 'Computer science papers from DBLP, one post each');
update_option('users_can_register', 1);
update_option('default_comment_status', 'open');
update_option('posts_per_page', 10);
switch_theme('twentytwentyone');
wp_delete_post(1, true); // the sample post
wp_delete_post(2, true); // the sample page
wp_defer_term_counting(true);
wp_suspend_cache_invalidation(true);
$ids = [];
$wpdb->query('START TRANSACTION');
foreach (file($argv[1]) as $n => $line) {
    $p = json_decode($line, true);
    $cat = wp_create_category($p['category']);
    $id = wp_insert_post([
        'post_title' => $p['title'],
        'post_content' => $p['content'],
        'post_status' => 'publish',
        'post_author' => 1,
        'post_date' => $p['date'],
        'post_category' => [$cat],
        'tags_input' => $p['tags'],
        'comment_status' => 'open',
    ], true);
    if (is_wp_error($id)) {
        fwrite(STDERR, "record " . $p['id'] . ": " . $id->get_error_message() . "\n");
        exit(1);
    }
    $ids[$p['id']] = $id;
}
$page = wp_insert_post(['post_type' => 'page', 'post_title' => 'About this blog', 'post_status' => 'publish',
    'post_content' => '<p>This blog holds ' . count($ids) . ' computer science papers from DBLP, one post per paper. ' .
        'Search it with the search box, or visit the <a href="' . $argv[2] . '">lab hub</a>.</p>'], true);
$wpdb->query('COMMIT');
// The classic Categories widget as a dropdown, beside the default block
// widgets: a real navigation form (a select of categories, GET to home).
update_option('widget_categories', [2 => ['title' => 'Categories', 'count' => 1, 'hierarchical' => 0, 'dropdown' => 1], '_multiwidget' => 1]);
$sw = get_option('sidebars_widgets');
$sw['sidebar-1'][] = 'categories-2';
update_option('sidebars_widgets', $sw);
wp_suspend_cache_invalidation(false);
wp_defer_term_counting(false);
echo json_encode($ids);
`

// wpRobots is what WordPress itself serves as robots.txt with pretty
// permalinks; with the plain permalinks of the lab it is a file.
const wpRobots = "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n"

func (w *wordpress) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("wordpress")
	if b, err := os.ReadFile(wpShimPath); err != nil || string(b) != wpShim {
		if err := os.WriteFile(wpShimPath, []byte(wpShim), 0o644); err != nil {
			return nil, fmt.Errorf("write Debian's WordPress config hook: %w (run as root, or create it as testbed/lab/install.sh does)", err)
		}
	}
	conf := filepath.Join(dir, "config.php")
	salt := strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(wpConfig, e.path("mariadb", "sock"), salt)), 0o644); err != nil {
		return nil, err
	}
	// A reload starts from an empty database.
	if _, err := e.run(ctx, dir, nil, "mariadb", "--no-defaults", "-S", e.path("mariadb", "sock"), "-uroot", "-e",
		"DROP DATABASE IF EXISTS wordpress; CREATE DATABASE wordpress CHARACTER SET utf8mb4;"); err != nil {
		return nil, err
	}
	papers, err := readPapers(e.data)
	if err != nil {
		return nil, err
	}
	var lines []string
	byID := map[string]paper{}
	for i, p := range papers {
		byID[p.ID] = p
		row, err := json.Marshal(map[string]any{
			"id": p.ID, "title": p.Title, "content": p.html(), "category": p.category(),
			"tags": p.tags(), "date": p.date(i)})
		if err != nil {
			return nil, err
		}
		lines = append(lines, string(row))
	}
	if err := os.WriteFile(filepath.Join(dir, "records.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "robots.txt"), []byte(wpRobots), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "load.php"), []byte(wpLoader), 0o644); err != nil {
		return nil, err
	}
	out, err := e.run(ctx, dir, w.env(e), "php", "load.php", "records.jsonl", e.lab.URL(Hub, "/"))
	if err != nil {
		return nil, err
	}
	var ids map[string]int
	if err := json.Unmarshal(out, &ids); err != nil {
		return nil, fmt.Errorf("wordpress loader output: %w: %.300s", err, out)
	}
	var recs []Record
	for _, p := range papers {
		id, ok := ids[p.ID]
		if !ok {
			return nil, fmt.Errorf("wordpress loader: no post for DBLP record %s", p.ID)
		}
		recs = append(recs, Record{Backend: w.backend(), ID: p.ID, Title: p.Title,
			Path: fmt.Sprintf("/?p=%d", id), Text: p.Title + " " + strings.Join(p.authors(), " ") + " " + p.Venue})
	}
	return recs, nil
}

func (w *wordpress) env(e *env) []string {
	return []string{"WORDPRESS_CONFIG=dwcrawl-lab", "DWCRAWL_LAB_WP_CONFIG=" + e.path("wordpress", "config.php")}
}

func (p paper) html() string {
	var b strings.Builder
	esc := htmlEscaper.Replace
	fmt.Fprintf(&b, "<p><strong>Authors:</strong> %s</p>\n", esc(strings.Join(p.authors(), ", ")))
	if p.Venue != "" {
		fmt.Fprintf(&b, "<p><strong>Published in:</strong> %s", esc(p.Venue))
		if p.Year != "" {
			fmt.Fprintf(&b, " (%s)", esc(p.Year))
		}
		if p.Pages != "" {
			fmt.Fprintf(&b, ", pages %s", esc(strings.ReplaceAll(p.Pages, "--", "–")))
		}
		b.WriteString("</p>\n")
	}
	if p.Publisher != "" {
		fmt.Fprintf(&b, "<p><strong>Publisher:</strong> %s</p>\n", esc(p.Publisher))
	}
	fmt.Fprintf(&b, "<p><small>DBLP record %s", esc(p.ID))
	if p.Link != "" {
		// The link stays text: the lab's pages point nowhere off the lab.
		fmt.Fprintf(&b, "; <code>%s</code>", esc(p.Link))
	}
	b.WriteString("</small></p>\n")
	return b.String()
}

func (p paper) category() string {
	switch p.Type {
	case "article":
		return "Journal articles"
	case "inproceedings":
		return "Conference papers"
	case "book", "incollection":
		return "Books and chapters"
	case "phdthesis", "mastersthesis":
		return "Theses"
	}
	return "Other publications"
}

func (p paper) tags() []string {
	if p.Year != "" {
		return []string{p.Year}
	}
	return nil
}

// date spreads the posts over their year, so archives by date make sense.
func (p paper) date(i int) string {
	y, err := strconv.Atoi(p.Year)
	if err != nil || y < 1970 || y > 2030 {
		y = 2000
	}
	t := time.Date(y, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i%360) * 24 * time.Hour).Add(time.Duration(i) * time.Second)
	return t.Format("2006-01-02 15:04:05")
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

func (w *wordpress) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  setenv.add-environment = ("WORDPRESS_CONFIG" => "dwcrawl-lab", "DWCRAWL_LAB_WP_CONFIG" => %q)
  alias.url = ("/robots.txt" => %q)
  $HTTP["url"] =~ "^/(wp-config|readme|license)" { url.access-deny = ("") }
`, wpRoot, e.path("wordpress", "config.php"), e.path("wordpress", "robots.txt"))
}

func (w *wordpress) pages(recs []Record) []string {
	r := pick(recs, 1)[0]
	return []string{
		"/",
		r.Path,
		"/?s=" + queryWord(r),
		"/wp-login.php",
		"/wp-login.php?action=register",
		"/wp-login.php?action=lostpassword",
	}
}

func (w *wordpress) label(f *Form) formLabel {
	fields := fieldSet(f)
	switch {
	case textField(f, "s") && f.Method == "GET":
		return formLabel{Kind: "search", Backend: w.backend(), QueryField: "s", PageParam: "paged", PageSize: 10}
	case fields["log"] && fields["pwd"]:
		return formLabel{Kind: "login"}
	case fields["user_login"] && fields["user_email"]:
		return formLabel{Kind: "registration"}
	case fields["user_login"] && strings.Contains(f.Action, "lostpassword"):
		return formLabel{Kind: "password"}
	case fields["comment"] && fields["comment_post_ID"]:
		return formLabel{Kind: "comment"}
	case fields["wp_lang"]:
		// wp-login.php's language switcher, served where language packs
		// are installed (wordpress-l10n): reloads the page in the language
		return formLabel{Kind: "options"}
	case fields["cat"] && len(f.Fields) == 1 && f.Method == "GET":
		// the Categories widget's dropdown: goes to a category's archive
		return formLabel{Kind: "navigation"}
	}
	return formLabel{Kind: "other"}
}
