// Package plugins finds and loads dwcrawl's Lua plugins: search-engine
// adapters (plugins/search/*.lua, used by reverse searching and seed
// discovery) and keyword-interface adapters (plugins/keyword/*.lua, used by
// surfacing and enrichment).
//
// Bundled plugins are embedded in the binary; a user's plugin directories
// (laid out as <dir>/search/<name>.lua, <dir>/keyword/<name>.lua) are
// searched first, so a user can add or override a plugin without touching Go
// code (the registry-by-name of Telegraf and Caddy). A plugin is referred to as
// "kind/name" ("search/simweb", "keyword/dblp"); it declares its kind, name
// and version in the table it returns.
//
// Only core/script touches Lua: a plugin's table is decoded strictly into
// the Go declaration of its kind (unknown keys and wrong types are errors
// naming the key at its line, as for profiles), its functions are
// script.Func values called through a script.Instance, and what they return
// is decoded into Go structs the same way. A plugin reads only the
// environment variables it declares (env, and its vars' env). The adapters
// retry under the project's one retry policy (package retry).
//
// Files whose name starts with "_" are helper modules, not plugins: a plugin
// loads them with require("search._common") (the sandbox's require only
// searches the plugin roots configured with PoolOptions).
package plugins
