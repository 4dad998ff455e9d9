package form

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/dwcrawl/dwcrawl/core/siteclass"
	"github.com/dwcrawl/dwcrawl/core/text"
	"sort"
	"strings"
	"sync"

	"github.com/dwcrawl/dwcrawl/core/domain"
)

// OtherDomain is the class of searchable forms outside the built-in
// domains (domain.BuiltIn).
const OtherDomain = "other"

// curated is the hand-written part of each domain's vocabulary: the field
// labels its search forms carry, phrases for keyword boxes, and words of
// the text around such forms. It is small on purpose: the bulk of the
// vocabulary (values, sentences) comes from real data (model/domains.json).
type curated struct {
	labels  string // "|"-separated field labels
	boxes   string // "|"-separated keyword-box prompts
	context string // "|"-separated phrases of surrounding text
	choices string // "|"-separated typical option values (categories, classes)
}

var curatedVocab = map[string]curated{
	"airfare": {
		labels:  "From|To|Leaving from|Going to|Origin|Destination|Depart|Departure date|Return|Return date|Passengers|Adults|Children|Infants|Cabin class|Class|Airline|One way|Round trip|Nonstop only|Flexible dates",
		boxes:   "Search flights|Find cheap flights|Flight search|Where do you want to fly?",
		context: "cheap flights|airfare deals|book your flight|airline tickets|compare airfares|round trip fares|last minute flights|fly to|economy and business class|low fares",
		choices: "Economy|Premium economy|Business|First class|Nonstop|1 stop|2+ stops|Morning|Afternoon|Evening|1 adult|2 adults|Any airline",
	},
	"apartment": {
		labels:  "City|Neighborhood|Zip code|Bedrooms|Bathrooms|Min rent|Max rent|Monthly rent|Pets allowed|Cats OK|Dogs OK|Move-in date|Square feet|Furnished|Laundry|Parking|Lease term|Property type",
		boxes:   "Search apartments|Find an apartment|Apartments for rent near|Enter city or zip",
		context: "apartments for rent|find your next apartment|studio and one bedroom apartments|rental listings|condos and townhomes|lease|tenants|landlord|move in specials|floor plans",
		choices: "Studio|1 bedroom|2 bedrooms|3 bedrooms|1 bath|2 baths|Cats allowed|Dogs allowed|No pets|Furnished|Unfurnished|Condo|Townhouse|Loft",
	},
	"auto": {
		labels:  "Make|Model|Year|Min year|Max year|Price|Max price|Mileage|Body style|Transmission|Fuel type|Exterior color|Condition|New/Used|Zip code|Distance|Trim|Drivetrain|Dealer|VIN",
		boxes:   "Search used cars|Find your next car|Search inventory|Enter make or model",
		context: "used cars for sale|new and used vehicles|car dealers|certified pre-owned|trucks and SUVs|sedans|auto listings|vehicle history|trade-in value|financing",
		choices: "Sedan|Coupe|SUV|Truck|Hatchback|Convertible|Wagon|Van|Automatic|Manual|Gasoline|Diesel|Hybrid|Electric|New|Used|Certified",
	},
	"book": {
		labels:  "Title|Author|ISBN|Publisher|Keyword|Subject|Series|Format|Hardcover|Paperback|Publication year|Language|Edition|Binding|Used books|First edition|Signed",
		boxes:   "Search books|Search by title, author or ISBN|Find books|Search the catalog",
		context: "new and used books|rare books|booksellers|bestsellers|textbooks|fiction and nonfiction|novels|library catalog|bookstore|reading",
		choices: "Hardcover|Paperback|eBook|Audiobook|Fiction|Nonfiction|Biography|History|Poetry|Children|Textbook|First edition|Signed copy",
	},
	"hotel": {
		labels:  "Destination|City|Hotel name|Check-in|Check-out|Check in date|Check out date|Rooms|Guests|Adults|Children|Star rating|Price per night|Amenities|Free breakfast|Pool|Near landmark",
		boxes:   "Search hotels|Find a hotel|Where are you staying?|Hotel search",
		context: "hotel deals|book hotels|lodging|resorts|bed and breakfast|motels|rooms available|nightly rates|suites|vacation stays",
		choices: "1 star|2 stars|3 stars|4 stars|5 stars|1 room|2 rooms|1 guest|2 guests|Free WiFi|Pool|Parking|Breakfast included|Pet friendly",
	},
	"job": {
		labels:  "Keywords|Job title|Location|City, state or zip|Category|Industry|Company|Salary|Minimum salary|Job type|Full-time|Part-time|Contract|Experience level|Date posted|Remote",
		boxes:   "Search jobs|Find jobs|What job are you looking for?|Job title, skills or company",
		context: "job openings|careers|employment opportunities|hiring now|post your resume|job listings|employers|apply online|salaries|recruiters",
		choices: "Full-time|Part-time|Contract|Temporary|Internship|Entry level|Senior|Manager|Engineering|Sales|Marketing|Nursing|Accounting|Remote",
	},
	"movie": {
		labels:  "Title|Actor|Director|Genre|Year|Release year|Rating|MPAA rating|Runtime|Studio|Distributor|Language|Showtimes|Theater|Zip code|Format|DVD|Blu-ray",
		boxes:   "Search movies|Find a movie|Search titles, actors, directors|Movie search",
		context: "movies|films|box office|showtimes|trailers|cast and crew|film reviews|cinema|DVD releases|watch online",
		choices: "Action|Comedy|Drama|Horror|Thriller|Documentary|Animation|Romance|Sci-Fi|G|PG|PG-13|R|Now playing|Coming soon",
	},
	"music": {
		labels:  "Artist|Album|Song|Song title|Track|Genre|Label|Record label|Year|Composer|Format|CD|Vinyl|MP3|Instrument|Band",
		boxes:   "Search music|Search artists, albums, songs|Find music|Music search",
		context: "music store|albums and singles|artists|songs|lyrics|concerts|record label|CDs and vinyl|playlists|bands",
		choices: "Rock|Pop|Jazz|Classical|Hip hop|Country|Blues|Electronic|Folk|Metal|Reggae|Soul|CD|Vinyl|MP3|Album|Single",
	},
	"people": {
		labels:  "First name|Last name|Middle name|City|State|Age|Phone number|Address|Email address|Maiden name|Date of birth|Relatives",
		boxes:   "Search people|Find a person|Enter a name|People search",
		context: "people search|find people|public records|background check|white pages|phone directory|reverse lookup|find old friends|family members|address history",
		choices: "Any age|18-25|26-35|36-50|51-65|Over 65|Male|Female|Current address|Previous address",
	},
	"product": {
		labels:  "Product|Category|Department|Brand|Price|Min price|Max price|Color|Size|Condition|Customer rating|Free shipping|In stock|Model number|Manufacturer|Sort by",
		boxes:   "Search products|Search the store|What are you looking for?|Search all departments",
		context: "shop online|products|electronics|appliances|home and garden|deals|free shipping|add to cart|customer reviews|brands",
		choices: "Electronics|Clothing|Shoes|Home & Garden|Toys|Sports & Outdoors|Beauty|Kitchen|Computers|Jewelry|Under $25|$25 to $50|Free shipping",
	},
	"rental": {
		labels:  "Pick-up location|Drop-off location|Pick-up date|Drop-off date|Pick-up time|Return time|Car type|Vehicle class|Rental company|Driver age|Airport|Return to same location|Economy|Compact|Full size|Minivan",
		boxes:   "Search car rentals|Find a rental car|Rent a car|Car rental search",
		context: "car rental|rent a car|rental cars|cheap car hire|airport car rental|one-way rentals|unlimited mileage|rental agreement|vans|weekly rates",
		choices: "Economy|Compact|Midsize|Intermediate|Standard|Fullsize|Premium|Luxury|Convertible|Minivan|SUV|Pickup|Van|Automatic",
	},
	"route": {
		labels:  "Start|Starting address|From address|End|Destination address|To address|Via|Avoid highways|Avoid tolls|Shortest route|Fastest route|Mode|Driving|Walking|Transit|Waypoint",
		boxes:   "Get directions|Plan your route|Enter start and end address|Route planner",
		context: "driving directions|maps|route planner|trip planner|distance between cities|travel time|road trip|traffic|turn-by-turn directions|mileage calculator",
		choices: "Car|Driving|Walking|Bicycle|Public transit|Fastest|Shortest|Avoid tolls|Avoid highways|Miles|Kilometers",
	},
	OtherDomain: {
		labels:  "Keywords|Search for|Category|Date|From date|To date|Author|Type|Section|Topic|Subject|Sort by|Results per page|Language|Region",
		boxes:   "Search|Search this site|Search the site|Enter keywords|Site search",
		context: "news|events|community|forum|blog|gallery|members area|announcements|press releases|downloads",
		choices: "All|Any|Articles|News|Events|Documents|Pages|Images|Videos|Last week|Last month|Last year",
	},
}

//go:embed model/domains.json
var domainsJSON []byte

// DomainVocab is one domain's vocabulary for generating training forms.
type DomainVocab struct {
	Labels  []string `json:"labels"`  // field labels
	Boxes   []string `json:"boxes"`   // keyword-box prompts
	Phrases []string `json:"phrases"` // short phrases of surrounding text
	Choices []string `json:"choices"` // typical option values, curated
	Values  []string `json:"values"`  // field values / select options, from real data
	Context []string `json:"context"` // sentences of surrounding text, from real data
}

var (
	vocabOnce sync.Once
	vocabMap  map[string]DomainVocab
	vocabErr  error
)

// Vocabulary returns the bundled vocabulary of every domain (the twelve
// and [OtherDomain]): the curated labels and phrases plus the values and
// sentences of model/domains.json (generated from the shared data by
// tools/genvocab).
func Vocabulary() (map[string]DomainVocab, error) {
	vocabOnce.Do(func() { vocabMap, vocabErr = parseVocabulary(domainsJSON) })
	return vocabMap, vocabErr
}

func parseVocabulary(b []byte) (map[string]DomainVocab, error) {
	var file struct {
		Domains map[string]struct {
			Values  []string `json:"values"`
			Context []string `json:"context"`
		} `json:"domains"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("domain vocabulary: %w", err)
	}
	out := make(map[string]DomainVocab, len(curatedVocab))
	for d, c := range curatedVocab {
		v := DomainVocab{
			Labels:  strings.Split(c.labels, "|"),
			Boxes:   strings.Split(c.boxes, "|"),
			Phrases: strings.Split(c.context, "|"),
			Choices: strings.Split(c.choices, "|"),
		}
		if fd, ok := file.Domains[d]; ok {
			v.Values, v.Context = fd.Values, fd.Context
		}
		out[d] = v
	}
	return out, nil
}

// domainClasses returns the DSFC classes, sorted.
func domainClasses() []string {
	out := append([]string{OtherDomain}, domain.BuiltIn...)
	sort.Strings(out)
	return out
}

// OffTopicTexts returns texts about none of the domains: the glosses of
// the site classifier's bundled background (WordNet glosses of 114 topics)
// that use none of the domains' core words ([domainNouns]).
func OffTopicTexts() []string {
	offTopicOnce.Do(func() {
		core := make(map[string]bool)
		for _, w := range strings.Fields(domainNouns) {
			core[text.Stem(w)] = true
		}
		for _, doc := range siteclass.BundledBackground() {
		glosses:
			for _, g := range strings.Split(doc.Text, "; ") {
				for _, t := range text.Terms(g) {
					if core[t] {
						continue glosses
					}
				}
				offTopic = append(offTopic, g)
			}
		}
	})
	return offTopic
}

// domainNouns are the words that name what the twelve domains' databases
// hold: a text using one of them is not off-topic for all domains.
const domainNouns = `flight flights airfare airline airlines airport fly apartment apartments rent
	rental rentals lease tenant car cars vehicle vehicles auto automobile truck book books author
	authors novel publisher hotel hotels lodging room rooms resort job jobs career careers employment
	employer salary movie movies film films cinema actor actress music song songs album albums artist
	band record people person persons name names product products shop store price route routes
	direction directions map maps road trip travel`

var (
	offTopicOnce sync.Once
	offTopic     []string
)
