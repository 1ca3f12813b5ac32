import type { CounterpartyType, PaymentChannel } from '../bank-link.port.js';

/**
 * Merchants the sandbox spends at. In `descriptors`, `#` becomes a digit and `{CITY}` / `{ST}` the
 * store's city and region, so the raw `name` varies the way statement descriptors do while
 * `merchantName` stays clean. `weight` is the relative frequency in everyday card spending
 * (0 = only used by a planted stream or a scripted event).
 */
export interface MerchantProfile {
  readonly key: string;
  readonly merchantName: string;
  readonly descriptors: readonly string[];
  readonly category: string | null;
  readonly channel: PaymentChannel;
  readonly counterpartyType: CounterpartyType;
  readonly website: string | null;
  /** The card terminal or aggregator that shows up as a second counterparty. */
  readonly processor: 'Square' | 'Toast' | null;
  readonly minCents: number;
  readonly maxCents: number;
  readonly weight: number;
}

const merchant = (
  key: string,
  merchantName: string,
  descriptors: readonly string[],
  category: string | null,
  channel: PaymentChannel,
  [minDollars, maxDollars, weight]: readonly [number, number, number],
  extra: { type?: CounterpartyType; website?: string | null; processor?: 'Square' | 'Toast' } = {},
): MerchantProfile => ({
  key,
  merchantName,
  descriptors,
  category,
  channel,
  counterpartyType: extra.type ?? 'merchant',
  website: extra.website === undefined ? `${key.replace(/-/g, '')}.com` : extra.website,
  processor: extra.processor ?? null,
  minCents: Math.round(minDollars * 100),
  maxCents: Math.round(maxDollars * 100),
  weight,
});

export const EVERYDAY_MERCHANTS: readonly MerchantProfile[] = [
  merchant('whole-foods', 'Whole Foods Market', ['WHOLEFDS {CITY} #####', 'WHOLE FOODS MARKET #####'], 'FOOD_AND_DRINK_GROCERIES', 'in store', [18, 165, 8], { website: 'wholefoodsmarket.com' }),
  merchant('trader-joes', "Trader Joe's", ["TRADER JOE'S #### {CITY} {ST}", 'TRADER JOES ###'], 'FOOD_AND_DRINK_GROCERIES', 'in store', [12, 120, 10]),
  merchant('safeway', 'Safeway', ['SAFEWAY #####', 'SAFEWAY STORE ####'], 'FOOD_AND_DRINK_GROCERIES', 'in store', [8, 140, 5]),
  merchant('olive-garden', 'Olive Garden', ['OLIVE GARDEN ####', 'OLIVE GARDEN {CITY}'], 'FOOD_AND_DRINK_RESTAURANT', 'in store', [28, 110, 1.5]),
  merchant('nopalito', 'Nopalito Kitchen', ['TST* NOPALITO KITCHEN', 'TST*NOPALITO {CITY}'], 'FOOD_AND_DRINK_RESTAURANT', 'in store', [22, 95, 2], { processor: 'Toast', website: null }),
  merchant('sakura-sushi', 'Sakura Sushi', ['SQ *SAKURA SUSHI', 'SQ *SAKURA SUSHI {CITY}'], 'FOOD_AND_DRINK_RESTAURANT', 'in store', [18, 80, 1.5], { processor: 'Square', website: null }),
  merchant('doordash', 'DoorDash', ['DOORDASH*#####', 'DD *DOORDASH {CITY}'], 'FOOD_AND_DRINK_RESTAURANT', 'online', [16, 70, 3], { type: 'marketplace' }),
  merchant('mcdonalds', "McDonald's", ["MCDONALD'S F#####", 'MCDONALDS #####'], 'FOOD_AND_DRINK_FAST_FOOD', 'in store', [5, 22, 3]),
  merchant('chipotle', 'Chipotle Mexican Grill', ['CHIPOTLE ####', 'CHIPOTLE ONLINE'], 'FOOD_AND_DRINK_FAST_FOOD', 'in store', [9, 32, 4], { website: 'chipotle.com' }),
  merchant('taco-bell', 'Taco Bell', ['TACO BELL #######'], 'FOOD_AND_DRINK_FAST_FOOD', 'in store', [6, 24, 2]),
  merchant('starbucks', 'Starbucks', ['STARBUCKS STORE #####', 'STARBUCKS #####'], 'FOOD_AND_DRINK_COFFEE', 'in store', [4, 16, 3]),
  merchant('total-wine', 'Total Wine & More', ['TOTAL WINE AND MORE ###'], 'FOOD_AND_DRINK_BEER_WINE_AND_LIQUOR', 'in store', [15, 90, 1]),
  merchant('amazon', 'Amazon', ['AMZN Mktp US*#######', 'Amazon.com*#######', 'AMAZON.COM*##### AMZN.COM/BILL WA'], 'GENERAL_MERCHANDISE_ONLINE_MARKETPLACES', 'online', [7, 180, 8], { type: 'marketplace' }),
  merchant('ebay', 'eBay', ['EBAY O*##-#####-#####'], 'GENERAL_MERCHANDISE_ONLINE_MARKETPLACES', 'online', [10, 150, 1], { type: 'marketplace' }),
  merchant('etsy', 'Etsy', ['ETSY.COM - #######'], 'GENERAL_MERCHANDISE_ONLINE_MARKETPLACES', 'online', [12, 85, 1], { type: 'marketplace' }),
  merchant('uniqlo', 'Uniqlo', ['UNIQLO USA ####', 'UNIQLO.COM'], 'GENERAL_MERCHANDISE_CLOTHING_AND_ACCESSORIES', 'in store', [20, 140, 1.5]),
  merchant('nike', 'Nike', ['NIKE.COM', 'NIKE FACTORY STORE ###'], 'GENERAL_MERCHANDISE_CLOTHING_AND_ACCESSORIES', 'online', [35, 180, 1]),
  merchant('best-buy', 'Best Buy', ['BEST BUY ####', 'BESTBUY.COM ########'], 'GENERAL_MERCHANDISE_ELECTRONICS', 'in store', [25, 600, 0.7], { website: 'bestbuy.com' }),
  merchant('target', 'Target', ['TARGET ########', 'TARGET.COM *'], 'GENERAL_MERCHANDISE_SUPERSTORES', 'in store', [9, 160, 5]),
  merchant('walmart', 'Walmart', ['WAL-MART #####', 'WALMART.COM'], 'GENERAL_MERCHANDISE_SUPERSTORES', 'in store', [8, 150, 3]),
  merchant('costco', 'Costco', ['COSTCO WHSE #####'], 'GENERAL_MERCHANDISE_SUPERSTORES', 'in store', [40, 320, 2.5]),
  merchant('chewy', 'Chewy', ['CHEWY.COM 800-672-4399'], 'GENERAL_MERCHANDISE_PET_SUPPLIES', 'online', [25, 110, 1]),
  merchant('ikea', 'IKEA', ['IKEA {CITY}', 'IKEA US ONLINE'], 'HOME_IMPROVEMENT_FURNITURE', 'in store', [30, 450, 0.4]),
  merchant('home-depot', 'The Home Depot', ['THE HOME DEPOT ####', 'HOMEDEPOT.COM'], 'HOME_IMPROVEMENT_HARDWARE', 'in store', [8, 260, 1.2], { website: 'homedepot.com' }),
  merchant('cvs', 'CVS Pharmacy', ['CVS/PHARMACY #####'], 'MEDICAL_PHARMACIES_AND_SUPPLEMENTS', 'in store', [6, 70, 2], { website: 'cvs.com' }),
  merchant('walgreens', 'Walgreens', ['WALGREENS #####'], 'MEDICAL_PHARMACIES_AND_SUPPLEMENTS', 'in store', [5, 60, 1.5]),
  merchant('one-medical', 'One Medical', ['ONE MEDICAL {CITY}'], 'MEDICAL_PRIMARY_CARE', 'other', [30, 180, 0.3], { website: 'onemedical.com' }),
  merchant('bright-smile', 'Bright Smile Dental', ['BRIGHT SMILE DENTAL {CITY}'], 'MEDICAL_DENTAL_CARE', 'in store', [60, 320, 0.2], { website: null }),
  merchant('supercuts', 'Supercuts', ['SUPERCUTS #####'], 'PERSONAL_CARE_HAIR_AND_BEAUTY', 'in store', [22, 60, 0.6]),
  merchant('sephora', 'Sephora', ['SEPHORA.COM', 'SEPHORA #####'], 'PERSONAL_CARE_HAIR_AND_BEAUTY', 'online', [18, 120, 0.8]),
  merchant('shell', 'Shell', ['SHELL OIL ###########', 'SHELL SERVICE STATION'], 'TRANSPORTATION_GAS', 'in store', [25, 75, 3]),
  merchant('chevron', 'Chevron', ['CHEVRON #######'], 'TRANSPORTATION_GAS', 'in store', [25, 80, 2]),
  merchant('metro-transit', 'Metro Transit', ['METRO TRANSIT FARE', 'CLIPPER SERVICE/TRANSIT'], 'TRANSPORTATION_PUBLIC_TRANSIT', 'in store', [2.5, 40, 2], { website: null }),
  merchant('uber', 'Uber', ['UBER *TRIP HELP.UBER.COM', 'UBER   *TRIP'], 'TRANSPORTATION_TAXIS_AND_RIDE_SHARES', 'online', [9, 48, 3]),
  merchant('lyft', 'Lyft', ['LYFT   *RIDE SUN 5PM', 'LYFT *RIDE'], 'TRANSPORTATION_TAXIS_AND_RIDE_SHARES', 'online', [8, 42, 1.5]),
  merchant('spothero', 'SpotHero', ['SPOTHERO ########'], 'TRANSPORTATION_PARKING', 'online', [8, 35, 0.8]),
  merchant('amc', 'AMC Theatres', ['AMC #### ONLINE', 'AMC {CITY} ##'], 'ENTERTAINMENT_SPORTING_EVENTS_AMUSEMENT_PARKS_AND_MUSEUMS', 'online', [14, 60, 0.8], { website: 'amctheatres.com' }),
  merchant('ticketmaster', 'Ticketmaster', ['TICKETMASTER ##########'], 'ENTERTAINMENT_SPORTING_EVENTS_AMUSEMENT_PARKS_AND_MUSEUMS', 'online', [45, 260, 0.3]),
  merchant('steam', 'Steam', ['STEAMGAMES.COM 4259522985', 'STEAM PURCHASE'], 'ENTERTAINMENT_VIDEO_GAMES', 'online', [5, 60, 0.6], { website: 'steampowered.com' }),
  merchant('red-cross', 'American Red Cross', ['AMERICAN RED CROSS DONATION'], 'GOVERNMENT_AND_NON_PROFIT_DONATIONS', 'online', [25, 100, 0.15], { website: 'redcross.org' }),
  merchant('coursera', 'Coursera', ['COURSERA.ORG'], 'GENERAL_SERVICES_EDUCATION', 'online', [39, 79, 0.1], { website: 'coursera.org' }),
  merchant('usps', 'USPS', ['USPS PO ##########'], 'GENERAL_SERVICES_OTHER_GENERAL_SERVICES', 'in store', [5, 40, 0.5], { website: 'usps.com' }),
  merchant('venmo', 'Venmo', ['VENMO PAYMENT ##########', 'VENMO *PAYMENT'], null, 'other', [10, 120, 1], { type: 'payment_app' }),
];

export const COFFEE_SHOPS: readonly MerchantProfile[] = [
  merchant('daily-grind', 'Daily Grind Coffee', ['SQ *DAILY GRIND COFFEE', 'SQ *DAILY GRIND {CITY}'], 'FOOD_AND_DRINK_COFFEE', 'in store', [3.75, 8.5, 0], { processor: 'Square', website: null }),
  merchant('little-owl', 'Little Owl Espresso', ['TST* LITTLE OWL ESPRESSO', 'TST*LITTLE OWL {CITY}'], 'FOOD_AND_DRINK_COFFEE', 'in store', [3.5, 8, 0], { processor: 'Toast', website: null }),
];

export const TRAVEL_MERCHANTS = {
  flight: merchant('united', 'United Airlines', ['UNITED ########## 800-932-2732 TX', 'UNITED AIRLINES'], 'TRAVEL_FLIGHTS', 'online', [180, 780, 0]),
  lodging: merchant('marriott', 'Marriott', ['MARRIOTT {CITY}', 'MARRIOTT HOTELS {CITY}'], 'TRAVEL_LODGING', 'in store', [320, 1100, 0]),
  rentalCar: merchant('hertz', 'Hertz', ['HERTZ RENT-A-CAR {CITY}'], 'TRAVEL_RENTAL_CARS', 'in store', [140, 420, 0]),
  dining: merchant('local-bistro', 'Cafe Central', ['CAFE CENTRAL {CITY}'], 'FOOD_AND_DRINK_RESTAURANT', 'in store', [24, 95, 0], { website: null }),
} as const;

/** Billers of the planted streams; amounts come from the stream plans. */
export const STREAM_MERCHANTS = {
  netflix: merchant('netflix', 'Netflix', ['NETFLIX.COM 866-579-7172', 'Netflix.com Los Gatos CA', 'NETFLIX INC'], 'ENTERTAINMENT_TV_AND_MOVIES', 'online', [0, 0, 0]),
  spotify: merchant('spotify', 'Spotify', ['Spotify USA 877-778-1161', 'SPOTIFY P##########', 'SPOTIFY USA'], 'ENTERTAINMENT_MUSIC_AND_AUDIO', 'online', [0, 0, 0]),
  hulu: merchant('hulu', 'Hulu', ['HULU 877-8244858 CA', 'HLU*HULUPLUS #########'], 'ENTERTAINMENT_TV_AND_MOVIES', 'online', [0, 0, 0]),
  icloud: merchant('icloud', 'Apple', ['APPLE.COM/BILL 866-712-7753 CA', 'APPLE.COM/BILL ITUNES.COM'], 'GENERAL_SERVICES_OTHER_GENERAL_SERVICES', 'online', [0, 0, 0], { website: 'apple.com' }),
  amazonPrime: merchant('amazon-prime', 'Amazon Prime', ['Amazon Prime*##### Amzn.com/bill WA', 'AMAZON PRIME MEMBERSHIP'], 'GENERAL_MERCHANDISE_ONLINE_MARKETPLACES', 'online', [0, 0, 0], { website: 'amazon.com' }),
  helloFresh: merchant('hellofresh', 'HelloFresh', ['HELLOFRESH 646-8461558 NY', 'HELLO FRESH NEW YORK NY'], 'FOOD_AND_DRINK_GROCERIES', 'online', [0, 0, 0]),
  gym: merchant('planet-fitness', 'Planet Fitness', ['PLANET FITNESS CLUB FEES', 'PLNT FITNESS #### {CITY}'], 'PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS', 'other', [0, 0, 0], { website: 'planetfitness.com' }),
  wireless: merchant('verizon', 'Verizon', ['VZWRLSS*APOCC VISB', 'VERIZON WIRELESS PAYMENTS'], 'RENT_AND_UTILITIES_TELEPHONE', 'online', [0, 0, 0], { website: 'verizon.com' }),
  internet: merchant('xfinity', 'Xfinity', ['COMCAST XFINITY 800-266-2278', 'XFINITY INTERNET'], 'RENT_AND_UTILITIES_INTERNET_AND_CABLE', 'online', [0, 0, 0]),
  power: merchant('metro-power', 'Metro Power & Light', ['METRO POWER & LIGHT WEB PMT', 'METRO POWER LIGHT ACH ########'], 'RENT_AND_UTILITIES_GAS_AND_ELECTRICITY', 'other', [0, 0, 0], { website: 'metropowerlight.example' }),
  water: merchant('city-water', 'City Water Utilities', ['CITY WATER UTIL AUTOPAY', 'CITY OF {CITY} WATER'], 'RENT_AND_UTILITIES_WATER', 'other', [0, 0, 0], { website: null }),
  insurance: merchant('geico', 'GEICO', ['GEICO *AUTO 800-841-3000 DC', 'GEICO AUTO INS PMT'], 'GENERAL_SERVICES_INSURANCE', 'other', [0, 0, 0]),
  rent: merchant('greenway', 'Greenway Property Management', ['GREENWAY PROPERTY MGMT ACH', 'GREENWAY PROP MGMT WEB PMT'], 'RENT_AND_UTILITIES_RENT', 'other', [0, 0, 0], { website: 'greenwayproperties.example' }),
} as const;
