/**
 * The system category taxonomy every user has: reference data, the same for all, never seeded per
 * user (decision 0034). The categories read model holds it as rows, filled when its schema is made,
 * so a change here is a new version of that projection (its spec holds the fingerprint).
 * `systemKey`s are stable API values (clients filter with `categoryGroup=<group systemKey>`) and
 * name ids users already carry: never rename or remove one. Names and icons are display defaults.
 */
export interface SystemCategory {
  readonly systemKey: string;
  readonly name: string;
  readonly iconKey: string;
}

export interface SystemCategoryGroup {
  readonly systemKey: string;
  readonly name: string;
  readonly categories: readonly SystemCategory[];
}

const category = (systemKey: string, name: string, iconKey: string): SystemCategory => ({ systemKey, name, iconKey });

export const SYSTEM_TAXONOMY: readonly SystemCategoryGroup[] = [
  { systemKey: 'INCOME', name: 'Income', categories: [
    category('INCOME_WAGES', 'Paycheck', 'briefcase'),
    category('INCOME_DIVIDENDS', 'Dividends', 'trending-up'),
    category('INCOME_INTEREST_EARNED', 'Interest', 'percent'),
    category('INCOME_RETIREMENT_PENSION', 'Pension', 'sunset'),
    category('INCOME_TAX_REFUND', 'Tax refund', 'receipt'),
    category('INCOME_OTHER_INCOME', 'Other income', 'plus-circle'),
    category('INCOME_UNEMPLOYMENT', 'Unemployment benefits', 'umbrella'),
  ] },
  { systemKey: 'TRANSFER_IN', name: 'Transfer in', categories: [
    category('TRANSFER_IN_DEPOSIT', 'Deposit', 'arrow-down-circle'),
    category('TRANSFER_IN_ACCOUNT_TRANSFER', 'Transfer from own account', 'repeat'),
    category('TRANSFER_IN_CASH_ADVANCES_AND_LOANS', 'Cash advance or loan', 'dollar-sign'),
    category('TRANSFER_IN_SAVINGS', 'From savings', 'piggy-bank'),
    category('TRANSFER_IN_INVESTMENT_AND_RETIREMENT_FUNDS', 'From investments', 'bar-chart'),
    category('TRANSFER_IN_OTHER_TRANSFER_IN', 'Other transfer in', 'log-in'),
  ] },
  { systemKey: 'TRANSFER_OUT', name: 'Transfer out', categories: [
    category('TRANSFER_OUT_WITHDRAWAL', 'Withdrawal', 'arrow-up-circle'),
    category('TRANSFER_OUT_ACCOUNT_TRANSFER', 'Transfer to own account', 'repeat'),
    category('TRANSFER_OUT_SAVINGS', 'Savings', 'piggy-bank'),
    category('TRANSFER_OUT_INVESTMENT_AND_RETIREMENT_FUNDS', 'Investments', 'bar-chart'),
    category('TRANSFER_OUT_OTHER_TRANSFER_OUT', 'Other transfer out', 'log-out'),
  ] },
  { systemKey: 'LOAN_PAYMENTS', name: 'Loan payments', categories: [
    category('LOAN_PAYMENTS_CREDIT_CARD_PAYMENT', 'Credit card payment', 'credit-card'),
    category('LOAN_PAYMENTS_MORTGAGE_PAYMENT', 'Mortgage payment', 'home'),
    category('LOAN_PAYMENTS_CAR_PAYMENT', 'Car payment', 'truck'),
    category('LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT', 'Student loan payment', 'book'),
    category('LOAN_PAYMENTS_PERSONAL_LOAN_PAYMENT', 'Personal loan payment', 'user'),
    category('LOAN_PAYMENTS_OTHER_PAYMENT', 'Other loan payment', 'file-minus'),
  ] },
  { systemKey: 'BANK_FEES', name: 'Bank fees', categories: [
    category('BANK_FEES_ATM_FEES', 'ATM fees', 'alert-circle'),
    category('BANK_FEES_OVERDRAFT_FEES', 'Overdraft fees', 'alert-triangle'),
    category('BANK_FEES_FOREIGN_TRANSACTION_FEES', 'Foreign transaction fees', 'globe'),
    category('BANK_FEES_OTHER_BANK_FEES', 'Other bank fees', 'alert-octagon'),
    category('BANK_FEES_INSUFFICIENT_FUNDS', 'Insufficient funds', 'x-circle'),
    category('BANK_FEES_INTEREST_CHARGE', 'Interest charges', 'percent'),
  ] },
  { systemKey: 'ENTERTAINMENT', name: 'Entertainment', categories: [
    category('ENTERTAINMENT_TV_AND_MOVIES', 'TV and movies', 'film'),
    category('ENTERTAINMENT_MUSIC_AND_AUDIO', 'Music and audio', 'music'),
    category('ENTERTAINMENT_SPORTING_EVENTS_AMUSEMENT_PARKS_AND_MUSEUMS', 'Events and attractions', 'ticket'),
    category('ENTERTAINMENT_VIDEO_GAMES', 'Video games', 'gamepad'),
    category('ENTERTAINMENT_CASINOS_AND_GAMBLING', 'Casinos and gambling', 'dice'),
    category('ENTERTAINMENT_OTHER_ENTERTAINMENT', 'Other entertainment', 'star'),
  ] },
  { systemKey: 'FOOD_AND_DRINK', name: 'Food and drink', categories: [
    category('FOOD_AND_DRINK_GROCERIES', 'Groceries', 'shopping-cart'),
    category('FOOD_AND_DRINK_RESTAURANT', 'Restaurants', 'utensils'),
    category('FOOD_AND_DRINK_COFFEE', 'Coffee', 'coffee'),
    category('FOOD_AND_DRINK_FAST_FOOD', 'Fast food', 'zap'),
    category('FOOD_AND_DRINK_BEER_WINE_AND_LIQUOR', 'Beer, wine and liquor', 'wine'),
    category('FOOD_AND_DRINK_VENDING_MACHINES', 'Vending machines', 'box'),
    category('FOOD_AND_DRINK_OTHER_FOOD_AND_DRINK', 'Other food and drink', 'utensils'),
  ] },
  { systemKey: 'GENERAL_MERCHANDISE', name: 'Shopping', categories: [
    category('GENERAL_MERCHANDISE_ONLINE_MARKETPLACES', 'Online marketplaces', 'package'),
    category('GENERAL_MERCHANDISE_CLOTHING_AND_ACCESSORIES', 'Clothing', 'shirt'),
    category('GENERAL_MERCHANDISE_ELECTRONICS', 'Electronics', 'monitor'),
    category('GENERAL_MERCHANDISE_SUPERSTORES', 'Superstores', 'shopping-bag'),
    category('GENERAL_MERCHANDISE_PET_SUPPLIES', 'Pet supplies', 'heart'),
    category('GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE', 'Other shopping', 'tag'),
    category('GENERAL_MERCHANDISE_BOOKSTORES_AND_NEWSSTANDS', 'Books and news', 'book'),
    category('GENERAL_MERCHANDISE_CONVENIENCE_STORES', 'Convenience stores', 'shopping-bag'),
    category('GENERAL_MERCHANDISE_DEPARTMENT_STORES', 'Department stores', 'shopping-bag'),
    category('GENERAL_MERCHANDISE_DISCOUNT_STORES', 'Discount stores', 'tag'),
    category('GENERAL_MERCHANDISE_GIFTS_AND_NOVELTIES', 'Gifts', 'gift'),
    category('GENERAL_MERCHANDISE_OFFICE_SUPPLIES', 'Office supplies', 'paperclip'),
    category('GENERAL_MERCHANDISE_SPORTING_GOODS', 'Sporting goods', 'award'),
  ] },
  { systemKey: 'HOME_IMPROVEMENT', name: 'Home', categories: [
    category('HOME_IMPROVEMENT_FURNITURE', 'Furniture', 'archive'),
    category('HOME_IMPROVEMENT_HARDWARE', 'Hardware', 'tool'),
    category('HOME_IMPROVEMENT_REPAIR_AND_MAINTENANCE', 'Repair and maintenance', 'settings'),
    category('HOME_IMPROVEMENT_SECURITY', 'Home security', 'lock'),
    category('HOME_IMPROVEMENT_OTHER_HOME_IMPROVEMENT', 'Other home', 'home'),
  ] },
  { systemKey: 'MEDICAL', name: 'Medical', categories: [
    category('MEDICAL_PRIMARY_CARE', 'Doctor', 'activity'),
    category('MEDICAL_PHARMACIES_AND_SUPPLEMENTS', 'Pharmacy', 'plus-square'),
    category('MEDICAL_DENTAL_CARE', 'Dentist', 'smile'),
    category('MEDICAL_EYE_CARE', 'Eye care', 'eye'),
    category('MEDICAL_VETERINARY_SERVICES', 'Vet', 'heart'),
    category('MEDICAL_OTHER_MEDICAL', 'Other medical', 'plus-square'),
  ] },
  { systemKey: 'PERSONAL_CARE', name: 'Personal care', categories: [
    category('PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS', 'Gym and fitness', 'dumbbell'),
    category('PERSONAL_CARE_HAIR_AND_BEAUTY', 'Hair and beauty', 'scissors'),
    category('PERSONAL_CARE_LAUNDRY_AND_DRY_CLEANING', 'Laundry and dry cleaning', 'wind'),
    category('PERSONAL_CARE_OTHER_PERSONAL_CARE', 'Other personal care', 'user'),
  ] },
  { systemKey: 'GENERAL_SERVICES', name: 'Services', categories: [
    category('GENERAL_SERVICES_INSURANCE', 'Insurance', 'shield'),
    category('GENERAL_SERVICES_TELECOMMUNICATION', 'Phone and internet', 'phone'),
    category('GENERAL_SERVICES_EDUCATION', 'Education', 'book-open'),
    category('GENERAL_SERVICES_OTHER_GENERAL_SERVICES', 'Other services', 'briefcase'),
    category('GENERAL_SERVICES_ACCOUNTING_AND_FINANCIAL_PLANNING', 'Accounting and financial planning', 'calculator'),
    category('GENERAL_SERVICES_AUTOMOTIVE', 'Car services', 'truck'),
    category('GENERAL_SERVICES_CHILDCARE', 'Childcare', 'users'),
    category('GENERAL_SERVICES_CONSULTING_AND_LEGAL', 'Legal and consulting', 'file-text'),
    category('GENERAL_SERVICES_POSTAGE_AND_SHIPPING', 'Postage and shipping', 'mail'),
    category('GENERAL_SERVICES_STORAGE', 'Storage', 'archive'),
  ] },
  { systemKey: 'GOVERNMENT_AND_NON_PROFIT', name: 'Government and charity', categories: [
    category('GOVERNMENT_AND_NON_PROFIT_DONATIONS', 'Donations', 'gift'),
    category('GOVERNMENT_AND_NON_PROFIT_TAX_PAYMENT', 'Taxes', 'file-text'),
    category('GOVERNMENT_AND_NON_PROFIT_GOVERNMENT_DEPARTMENTS_AND_AGENCIES', 'Government fees', 'flag'),
    category('GOVERNMENT_AND_NON_PROFIT_OTHER_GOVERNMENT_AND_NON_PROFIT', 'Other government and charity', 'flag'),
  ] },
  { systemKey: 'TRANSPORTATION', name: 'Transportation', categories: [
    category('TRANSPORTATION_GAS', 'Gas', 'droplet'),
    category('TRANSPORTATION_PUBLIC_TRANSIT', 'Public transit', 'navigation'),
    category('TRANSPORTATION_TAXIS_AND_RIDE_SHARES', 'Taxis and ride shares', 'map-pin'),
    category('TRANSPORTATION_PARKING', 'Parking', 'square'),
    category('TRANSPORTATION_TOLLS', 'Tolls', 'credit-card'),
    category('TRANSPORTATION_BIKES_AND_SCOOTERS', 'Bikes and scooters', 'bike'),
    category('TRANSPORTATION_OTHER_TRANSPORTATION', 'Other transportation', 'map'),
  ] },
  { systemKey: 'TRAVEL', name: 'Travel', categories: [
    category('TRAVEL_FLIGHTS', 'Flights', 'send'),
    category('TRAVEL_LODGING', 'Lodging', 'moon'),
    category('TRAVEL_RENTAL_CARS', 'Rental cars', 'key'),
    category('TRAVEL_OTHER_TRAVEL', 'Other travel', 'compass'),
  ] },
  { systemKey: 'RENT_AND_UTILITIES', name: 'Rent and utilities', categories: [
    category('RENT_AND_UTILITIES_RENT', 'Rent', 'home'),
    category('RENT_AND_UTILITIES_GAS_AND_ELECTRICITY', 'Gas and electricity', 'zap'),
    category('RENT_AND_UTILITIES_INTERNET_AND_CABLE', 'Internet and cable', 'wifi'),
    category('RENT_AND_UTILITIES_WATER', 'Water', 'droplet'),
    category('RENT_AND_UTILITIES_TELEPHONE', 'Telephone', 'phone'),
    category('RENT_AND_UTILITIES_SEWAGE_AND_WASTE_MANAGEMENT', 'Sewage and waste', 'trash'),
    category('RENT_AND_UTILITIES_OTHER_UTILITIES', 'Other utilities', 'zap'),
  ] },
];

export const CATEGORY_GROUP_KEYS: readonly string[] = SYSTEM_TAXONOMY.map((group) => group.systemKey);
