import type { Security } from '../quote.port.js';

/**
 * The sandbox market's securities: well-known US stocks and ETFs with a rough mid-2025 price
 * (the level the random walk passes through on the reference day) and dividend yield, plus a
 * generated tail of fictional mid-caps to reach a few hundred symbols.
 */
export interface SandboxSecurity extends Security {
  readonly referencePrice: number;
  /** Annual dividend yield as a fraction (0.013 = 1.3 %). */
  readonly dividendYield: number;
  readonly annualVolatility: number;
  readonly annualDrift: number;
  readonly averageVolume: number;
}

// symbol|name|reference price|dividend yield in percent
const STOCKS = `
AAPL|Apple Inc.|203|0.5;MSFT|Microsoft Corporation|462|0.7;NVDA|NVIDIA Corporation|141|0.03;AMZN|Amazon.com, Inc.|212|0
GOOGL|Alphabet Inc. Class A|173|0.5;GOOG|Alphabet Inc. Class C|174|0.5;META|Meta Platforms, Inc.|694|0.3;BRK.B|Berkshire Hathaway Inc. Class B|487|0
TSLA|Tesla, Inc.|332|0;AVGO|Broadcom Inc.|246|1.0;JPM|JPMorgan Chase & Co.|265|2.1;LLY|Eli Lilly and Company|752|0.8
V|Visa Inc.|362|0.7;UNH|UnitedHealth Group Incorporated|302|2.8;XOM|Exxon Mobil Corporation|108|3.7;MA|Mastercard Incorporated|575|0.5
JNJ|Johnson & Johnson|155|3.3;PG|The Procter & Gamble Company|161|2.5;HD|The Home Depot, Inc.|368|2.5;COST|Costco Wholesale Corporation|1031|0.5
ABBV|AbbVie Inc.|187|3.5;WMT|Walmart Inc.|98|1.0;NFLX|Netflix, Inc.|1211|0;CRM|Salesforce, Inc.|268|0.6
BAC|Bank of America Corporation|45|2.3;KO|The Coca-Cola Company|71|2.9;PEP|PepsiCo, Inc.|131|4.2;ORCL|Oracle Corporation|166|1.2
CVX|Chevron Corporation|142|4.8;MRK|Merck & Co., Inc.|80|4.0;ADBE|Adobe Inc.|414|0;AMD|Advanced Micro Devices, Inc.|115|0
TMO|Thermo Fisher Scientific Inc.|405|0.4;ACN|Accenture plc|316|1.9;MCD|McDonald's Corporation|312|2.3;CSCO|Cisco Systems, Inc.|64|2.5
ABT|Abbott Laboratories|134|1.7;LIN|Linde plc|468|1.3;DIS|The Walt Disney Company|113|0.9;WFC|Wells Fargo & Company|75|2.1
INTC|Intel Corporation|20|0;QCOM|QUALCOMM Incorporated|154|2.3;TXN|Texas Instruments Incorporated|183|3.0;INTU|Intuit Inc.|753|0.6
IBM|International Business Machines Corporation|259|2.6;CAT|Caterpillar Inc.|348|1.6;AMGN|Amgen Inc.|288|3.3;GE|GE Aerospace|246|0.5
VZ|Verizon Communications Inc.|43|6.2;T|AT&T Inc.|27|4.0;PFE|Pfizer Inc.|23|7.3;CMCSA|Comcast Corporation|35|3.8
NKE|NIKE, Inc.|61|2.6;UPS|United Parcel Service, Inc.|98|6.7;LOW|Lowe's Companies, Inc.|221|2.1;SBUX|Starbucks Corporation|84|2.9
BA|The Boeing Company|207|0;GS|The Goldman Sachs Group, Inc.|601|2.0;MS|Morgan Stanley|128|2.9;SPGI|S&P Global Inc.|514|0.7
BLK|BlackRock, Inc.|980|2.1;AXP|American Express Company|294|1.0;RTX|RTX Corporation|136|1.9;HON|Honeywell International Inc.|226|2.0
DE|Deere & Company|506|1.3;MDT|Medtronic plc|83|3.4;ISRG|Intuitive Surgical, Inc.|552|0;NOW|ServiceNow, Inc.|1011|0
PLTR|Palantir Technologies Inc.|131|0;UBER|Uber Technologies, Inc.|84|0;PYPL|PayPal Holdings, Inc.|70|0;SHOP|Shopify Inc.|107|0
ABNB|Airbnb, Inc.|129|0;SNOW|Snowflake Inc.|205|0;COIN|Coinbase Global, Inc.|255|0;F|Ford Motor Company|10|5.8
GM|General Motors Company|49|1.0;DAL|Delta Air Lines, Inc.|48|1.2;UAL|United Airlines Holdings, Inc.|79|0;MMM|3M Company|148|1.9
MO|Altria Group, Inc.|60|6.8;PM|Philip Morris International Inc.|181|3.0;CL|Colgate-Palmolive Company|92|2.2;KMB|Kimberly-Clark Corporation|143|3.5
GIS|General Mills, Inc.|54|4.4;KHC|The Kraft Heinz Company|27|5.9;TGT|Target Corporation|95|4.7;CVS|CVS Health Corporation|64|4.2
CI|The Cigna Group|315|1.8;HUM|Humana Inc.|232|1.5;ELV|Elevance Health, Inc.|385|1.8;BMY|Bristol-Myers Squibb Company|48|5.1
GILD|Gilead Sciences, Inc.|110|2.9;REGN|Regeneron Pharmaceuticals, Inc.|510|0;VRTX|Vertex Pharmaceuticals Incorporated|446|0;ZTS|Zoetis Inc.|168|1.2
SYK|Stryker Corporation|382|0.9;BSX|Boston Scientific Corporation|103|0;ADP|Automatic Data Processing, Inc.|325|1.9;PANW|Palo Alto Networks, Inc.|193|0
CRWD|CrowdStrike Holdings, Inc.|469|0;FTNT|Fortinet, Inc.|101|0;ZS|Zscaler, Inc.|287|0;NET|Cloudflare, Inc.|165|0
DDOG|Datadog, Inc.|117|0;MDB|MongoDB, Inc.|205|0;TEAM|Atlassian Corporation|208|0;WDAY|Workday, Inc.|248|0
ADSK|Autodesk, Inc.|296|0;MU|Micron Technology, Inc.|95|0.5;AMAT|Applied Materials, Inc.|157|1.0;LRCX|Lam Research Corporation|83|1.1
KLAC|KLA Corporation|776|0.9;MRVL|Marvell Technology, Inc.|60|0.4;ON|ON Semiconductor Corporation|42|0;NXPI|NXP Semiconductors N.V.|191|2.1
ARM|Arm Holdings plc|131|0;TSM|Taiwan Semiconductor Manufacturing Company Limited|199|1.4;ASML|ASML Holding N.V.|737|0.9;SAP|SAP SE|295|0.9
TM|Toyota Motor Corporation|178|2.6;SONY|Sony Group Corporation|26|0.5;NVO|Novo Nordisk A/S|70|2.4;SHEL|Shell plc|68|4.0
BP|BP p.l.c.|29|6.4;RIO|Rio Tinto Group|59|6.8;BHP|BHP Group Limited|48|5.1;BABA|Alibaba Group Holding Limited|117|0.9
JD|JD.com, Inc.|33|3.0;PDD|PDD Holdings Inc.|98|0;NIO|NIO Inc.|3.5|0;RIVN|Rivian Automotive, Inc.|14|0
LCID|Lucid Group, Inc.|2.3|0;ROKU|Roku, Inc.|72|0;SPOT|Spotify Technology S.A.|664|0;ETSY|Etsy, Inc.|51|0
EBAY|eBay Inc.|73|1.6;EA|Electronic Arts Inc.|146|0.5;TTWO|Take-Two Interactive Software, Inc.|226|0;RBLX|Roblox Corporation|86|0
U|Unity Software Inc.|23|0;LYFT|Lyft, Inc.|15|0;DASH|DoorDash, Inc.|209|0;ZM|Zoom Communications, Inc.|81|0
DOCU|DocuSign, Inc.|91|0;PINS|Pinterest, Inc.|31|0;SNAP|Snap Inc.|8.3|0;HOOD|Robinhood Markets, Inc.|63|0
SOFI|SoFi Technologies, Inc.|13|0;C|Citigroup Inc.|75|3.0;USB|U.S. Bancorp|44|4.5;PNC|The PNC Financial Services Group, Inc.|174|3.7
SCHW|The Charles Schwab Corporation|88|1.2;BK|The Bank of New York Mellon Corporation|88|2.1;TFC|Truist Financial Corporation|39|5.3;COF|Capital One Financial Corporation|189|1.3
MET|MetLife, Inc.|79|2.8;PRU|Prudential Financial, Inc.|105|5.0;AIG|American International Group, Inc.|84|1.9;ALL|The Allstate Corporation|209|1.9
TRV|The Travelers Companies, Inc.|271|1.6;CB|Chubb Limited|295|1.3;PGR|The Progressive Corporation|283|0.2;MMC|Marsh & McLennan Companies, Inc.|232|1.4
AON|Aon plc|369|0.8;ICE|Intercontinental Exchange, Inc.|180|1.1;CME|CME Group Inc.|284|1.8;NDAQ|Nasdaq, Inc.|84|1.2
MCO|Moody's Corporation|482|0.8;O|Realty Income Corporation|57|5.6;PLD|Prologis, Inc.|109|3.7;AMT|American Tower Corporation|218|3.1
CCI|Crown Castle Inc.|100|4.3;EQIX|Equinix, Inc.|893|2.1;SPG|Simon Property Group, Inc.|160|5.2;PSA|Public Storage|301|4.0
WELL|Welltower Inc.|153|1.8;NEE|NextEra Energy, Inc.|70|3.0;DUK|Duke Energy Corporation|117|3.6;SO|The Southern Company|89|3.3
D|Dominion Energy, Inc.|55|4.8;AEP|American Electric Power Company, Inc.|103|3.6;EXC|Exelon Corporation|44|3.6;SRE|Sempra|76|3.4
XEL|Xcel Energy Inc.|70|3.2;ED|Consolidated Edison, Inc.|104|3.3;PEG|Public Service Enterprise Group Incorporated|81|3.0;NOC|Northrop Grumman Corporation|485|1.7
LMT|Lockheed Martin Corporation|470|2.8;GD|General Dynamics Corporation|279|2.1;UNP|Union Pacific Corporation|225|2.4;CSX|CSX Corporation|32|1.6
`;

const ETFS = `
VTI|Vanguard Total Stock Market ETF|294|1.3;VOO|Vanguard S&P 500 ETF|543|1.3;SPY|SPDR S&P 500 ETF Trust|592|1.2;IVV|iShares Core S&P 500 ETF|596|1.3
QQQ|Invesco QQQ Trust, Series 1|522|0.6;VXUS|Vanguard Total International Stock ETF|67|3.0;VEA|Vanguard FTSE Developed Markets ETF|55|2.8;VWO|Vanguard FTSE Emerging Markets ETF|47|2.9
VT|Vanguard Total World Stock ETF|125|1.9;BND|Vanguard Total Bond Market ETF|73|3.7;BNDX|Vanguard Total International Bond ETF|49|4.2;AGG|iShares Core U.S. Aggregate Bond ETF|98|3.8
SCHD|Schwab U.S. Dividend Equity ETF|27|3.9;VIG|Vanguard Dividend Appreciation ETF|199|1.7;VYM|Vanguard High Dividend Yield ETF|129|2.8;VNQ|Vanguard Real Estate ETF|89|3.9
IWM|iShares Russell 2000 ETF|206|1.2;DIA|SPDR Dow Jones Industrial Average ETF Trust|423|1.6;GLD|SPDR Gold Shares|310|0;TLT|iShares 20+ Year Treasury Bond ETF|86|4.4
XLK|Technology Select Sector SPDR Fund|236|0.7;XLF|Financial Select Sector SPDR Fund|51|1.4;XLE|Energy Select Sector SPDR Fund|84|3.3;XLV|Health Care Select Sector SPDR Fund|133|1.7
ARKK|ARK Innovation ETF|58|0;VGT|Vanguard Information Technology ETF|618|0.5;SCHB|Schwab U.S. Broad Market ETF|23|1.2;SCHX|Schwab U.S. Large-Cap ETF|24|1.2
IEFA|iShares Core MSCI EAFE ETF|82|3.0;EFA|iShares MSCI EAFE ETF|88|2.9;LQD|iShares iBoxx $ Investment Grade Corporate Bond ETF|108|4.4;HYG|iShares iBoxx $ High Yield Corporate Bond ETF|79|5.8
IJR|iShares Core S&P Small-Cap ETF|106|1.5;IJH|iShares Core S&P Mid-Cap ETF|60|1.4;VUG|Vanguard Growth ETF|410|0.5;VTV|Vanguard Value ETF|172|2.2
`;

const BOND_FUNDS = new Set(['BND', 'BNDX', 'AGG', 'TLT', 'LQD', 'HYG']);

/** A deterministic fraction in [0, 1) from a symbol, so a security's character never depends on the seed. */
function symbolFraction(symbol: string, salt: number): number {
  let hash = 0x811c9dc5 ^ salt;
  for (let i = 0; i < symbol.length; i += 1) hash = Math.imul(hash ^ symbol.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  hash ^= hash >>> 12;
  return (hash >>> 0) / 4294967296;
}

function security(symbol: string, name: string, kind: Security['kind'], referencePrice: number, yieldPercent: number): SandboxSecurity {
  const bond = BOND_FUNDS.has(symbol);
  const [lowVol, highVol] = bond ? [0.05, 0.14] : kind === 'etf' ? [0.12, 0.22] : [0.2, 0.55];
  return {
    symbol,
    name,
    kind,
    currency: 'USD',
    referencePrice,
    dividendYield: yieldPercent / 100,
    annualVolatility: lowVol + (highVol - lowVol) * symbolFraction(symbol, 1),
    annualDrift: bond ? 0.01 : 0.02 + 0.1 * symbolFraction(symbol, 2),
    averageVolume: Math.round((kind === 'etf' ? 2e6 : 1e6) * (0.5 + 20 * symbolFraction(symbol, 3) ** 3)),
  };
}

function parse(table: string, kind: Security['kind']): SandboxSecurity[] {
  return table
    .trim()
    .split(/[;\n]/)
    .map((entry) => {
      const [symbol, name, price, yieldPercent] = entry.split('|') as [string, string, string, string];
      return security(symbol, name, kind, Number(price), Number(yieldPercent));
    });
}

const NAME_PARTS = ['Apex', 'Blue Ridge', 'Cobalt', 'Crescent', 'Evergreen', 'Frontier', 'Granite', 'Harborview', 'Ironwood', 'Juniper', 'Keystone', 'Lakeshore', 'Meridian', 'Northgate', 'Oakmont', 'Pinnacle', 'Redwood', 'Silverline', 'Tidewater', 'Vantage'];
const SECTORS = [['Therapeutics', 'Inc.'], ['Semiconductor', 'Corp.'], ['Energy', 'Partners'], ['Financial', 'Group'], ['Logistics', 'Inc.'], ['Software', 'Inc.']] as const;

/** Fictional mid-caps: "Granite Logistics Inc." trades as GRLO (a letter changes on a clash). */
function generatedSecurities(taken: Set<string>): SandboxSecurity[] {
  const generated: SandboxSecurity[] = [];
  for (const part of NAME_PARTS) {
    for (const [sector, suffix] of SECTORS) {
      const base = (part.replace(/[^A-Za-z]/g, '').slice(0, 2) + sector.slice(0, 2)).toUpperCase();
      let symbol = base;
      for (let letter = 0; taken.has(symbol); letter += 1) symbol = base.slice(0, 3) + String.fromCharCode(65 + (letter % 26)) + (letter >= 26 ? String(Math.floor(letter / 26)) : '');
      taken.add(symbol);
      const price = Math.round((8 + 240 * symbolFraction(symbol, 4) ** 2) * 100) / 100;
      generated.push(security(symbol, `${part} ${sector} ${suffix}`, 'stock', price, symbolFraction(symbol, 5) < 0.4 ? 0 : Math.round(symbolFraction(symbol, 6) * 40) / 10));
    }
  }
  return generated;
}

function buildUniverse(): readonly SandboxSecurity[] {
  const listed = [...parse(STOCKS, 'stock'), ...parse(ETFS, 'etf')];
  return Object.freeze([...listed, ...generatedSecurities(new Set(listed.map((entry) => entry.symbol)))]);
}

export const SANDBOX_SECURITIES: readonly SandboxSecurity[] = buildUniverse();
