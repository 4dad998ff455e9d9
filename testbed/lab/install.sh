#!/usr/bin/env bash
# Installs the Debian packages of the dwcrawl lab (testbed/lab): the web
# applications, the web server, PHP and MariaDB. Needs root (apt-get).
# Services are not started by the packages (policy-rc.d): the lab starts its
# own daemons, as root, with their data in the lab directory.
set -euo pipefail

packages=(
	lighttpd php-cgi php-cli php-sqlite3 php-mysql php-mbstring php-xml php-intl
	mediawiki
	wordpress wordpress-theme-twentytwentyone mariadb-server mariadb-client
	dokuwiki
	cgit git
	xapian-omega
	htdig
	gitweb
	phpmyadmin wordpress-l10n
	eatmydata curl
	namazu2 namazu2-index-tools
	swish-e libcgi-pm-perl libdate-calc-perl
	redmine redmine-sqlite ruby-webrick
	gitit
)

if [ "$(id -u)" != 0 ]; then
	echo "lab install: needs root for apt-get" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive

# Keep maintainer scripts from starting services (mariadb, lighttpd, apache2)
# where no policy says so already.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod +x "$policy"
	trap 'rm -f "$policy"' EXIT
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "lab install: all ${#packages[@]} packages installed"
	exit 0
fi
echo "lab install: apt-get install ${missing[*]}"
apt-get update -qq
# dpkg fsyncs every file; eatmydata (when it is there) skips that, which
# makes the install several times faster on a slow disk.
eat=()
if apt-get install -y -qq --no-install-recommends eatmydata >/dev/null; then
	eat=(eatmydata)
fi
# PHP's SAPIs first: with php-cgi there, the "php" package the applications
# depend on needs neither Apache nor its PHP module (each SAPI multiplies the
# module-enabling work of every PHP package's configure step).
"${eat[@]}" apt-get install -y -qq --no-install-recommends php-cgi php-cli >/dev/null
"${eat[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "lab install: done"
