-- core/crawl/testdata/recipes.lua — a profile for a topic outside the twelve
-- built-in domains (fixture written for dwcrawl's tests).
--
-- Its classifiers are trained from what it says: the keywords, the example
-- form and the example page below, and the homepages of its seeds at crawl
-- start. The domain is "cooking" so that the simulated web, which has
-- cooking sites with recipe databases among its off-topic categories, can
-- seed a --testbed run.

return dw.domain{
  name        = "recipes",
  description = "Recipe search forms: recipe sites and cooking databases",
  domain      = "cooking",

  seeds = { "www.allrecipes.com", "www.bbcgoodfood.com", "www.epicurious.com" },

  keywords = {
    "recipe", "recipes", "cooking", "cook", "ingredients", "dinner", "baking", "dessert",
    "kitchen", "cuisine", "dish", "soup", "sauce", "bake", "roast",
  },

  site = { keywords = { "recipes", "cooking", "food", "cookbook" } },

  forms = {
    keywords = { "ingredient", "recipe", "cuisine", "course", "cooking time", "diet", "dish" },
    examples = {
      [[<form action="/recipes/search" method="get">
          <label>Ingredients <input name="ingredients" placeholder="e.g. chicken, garlic"></label>
          <label>Cuisine <select name="cuisine"><option value="">Any cuisine</option><option>Italian</option><option>Mexican</option><option>Indian</option><option>Thai</option></select></label>
          <label>Course <select name="course"><option>Main dish</option><option>Dessert</option><option>Soup</option><option>Salad</option></select></label>
          <label>Cooking time <select name="time"><option>Under 30 minutes</option><option>Under 1 hour</option></select></label>
          <button type="submit">Find recipes</button>
        </form>]],
    },
  },

  examples = { "recipes-home.html" },

  reverse = { plugin = "search/simweb" },
}
