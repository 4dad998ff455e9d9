-- domains/job.lua — job search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of job boards, recruiting sites and employer career pages (search
-- by keywords, job title, location, category).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/job.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "job" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "job",
  description = "Searchable job-listing forms: job boards, aggregators, government and employer career sites",
  domain      = "job",

  -- Where the crawl starts (bare host names mean https://host/). Job
  -- boards and aggregators; each has a what/where search form on its
  -- home page.
  seeds = {
    "www.indeed.com",
    "www.monster.com",
    "www.glassdoor.com",
    "www.simplyhired.com",
    "www.careerbuilder.com",
    "www.ziprecruiter.com",
    "www.usajobs.gov",
    "www.dice.com",
    "www.snagajob.com",
    "www.idealist.org",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "job", "jobs", "career", "careers", "employment", "hiring", "job search", "job openings",
    "vacancies", "resume", "salary", "full time", "part time", "internship", "employer", "recruiter",
    "apply", "position",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = { "jobs", "job search", "careers", "employment", "job board", "hiring" },
    negative = { "steve jobs", "jobs report", "jobless claims", "job shadowing", "odd jobs" },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "jobs", "search jobs", "find jobs", "careers", "job search", "openings", "browse jobs",
      "vacancies",
    },
    negative = {
      "login", "sign in", "register", "privacy", "terms", "cookie", "contact", "help", "about us",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "keywords", "job title", "what", "where", "location", "city", "zip", "category", "company",
      "salary", "job type", "radius",
    },
    examples = {
      [[<form action="/jobs" method="get">
          <input name="q" placeholder="Job title, keywords or company">
          <input name="l" placeholder="City, state or zip code">
          <select name="jt"><option value="">All job types</option><option value="fulltime">Full-time</option><option value="parttime">Part-time</option></select>
          <button type="submit">Find jobs</button>
        </form>]],
    },
  },

  -- Reverse searching, the stop-early criteria SC1–SC5, ranking, learning,
  -- scope, sitemaps and budgets keep their defaults: auto.lua spells out
  -- every setting and `dwcrawl profile check` prints the resolved values.
  -- Reverse search uses the first engine whose environment is set
  -- (SEARXNG_URL; BRAVE_API_KEY; GOOGLE_API_KEY and GOOGLE_CSE_ID); with
  -- --testbed the simulated engine.
  reverse    = { plugins = { "search/searxng", "search/brave", "search/google" } },
  politeness = { delay = "2s" },
}
