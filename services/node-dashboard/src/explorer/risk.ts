/**
 * What calling a method can do, from least to most dangerous. The app asks for a confirmation above the two
 * read classes and for the typed method name in the top class; RPC_METHOD_DENYLIST stays the server's control.
 */
export const RISK_CLASSES = ['read_only', 'wallet_read', 'changes_state', 'funds_or_keys', 'stops_or_damages'] as const
export type RiskClass = (typeof RISK_CLASSES)[number]

const READ_ONLY = [
  // Blockchain, mempool, control, mining and network reads.
  'getbestblockhash getblock getblockchaininfo getblockcount getblockfilter getblockhash getblockheader getblockstats',
  'getchainstates getchaintips getchaintxstats getdeploymentinfo getdescriptoractivity getdifficulty',
  'getmempoolancestors getmempooldescendants getmempoolentry getmempoolinfo getrawmempool gettxout gettxoutproof',
  'gettxoutsetinfo gettxspendingprevout scanblocks scantxoutset verifychain verifytxoutproof waitforblock',
  'waitforblockheight waitfornewblock getmemoryinfo getrpcinfo help uptime getblocktemplate getmininginfo',
  'getnetworkhashps getprioritisedtransactions getaddednodeinfo getaddrmaninfo getconnectioncount getnettotals',
  'getnetworkinfo getnodeaddresses getpeerinfo listbanned getrawaddrman estimaterawfee getzmqnotifications',
  // Transaction and PSBT tools that compute without a wallet and without broadcasting.
  'analyzepsbt combinepsbt combinerawtransaction converttopsbt createpsbt createrawtransaction decodepsbt',
  'decoderawtransaction decodescript finalizepsbt getrawtransaction joinpsbts testmempoolaccept utxoupdatepsbt',
  'createmultisig deriveaddresses estimatesmartfee getdescriptorinfo getindexinfo validateaddress verifymessage',
  'enumeratesigners echo echojson echoipc syncwithvalidationinterfacequeue',
]

const WALLET_READ = [
  'getaddressesbylabel getaddressinfo getbalance getbalances getreceivedbyaddress getreceivedbylabel gettransaction',
  'getunconfirmedbalance getwalletinfo listaddressgroupings listlabels listlockunspent listreceivedbyaddress',
  'listreceivedbylabel listsinceblock listtransactions listunspent listwalletdir listwallets simulaterawtransaction',
  'walletdisplayaddress',
]

const CHANGES_STATE = [
  // Node: mempool, chain preference, peers and bans, logging, mining and test-chain controls.
  'getblockfrompeer importmempool preciousblock pruneblockchain savemempool logging prioritisetransaction submitblock submitheader',
  'reconsiderblock addnode clearbanned disconnectnode ping setban setnetworkactive addpeeraddress addconnection',
  'sendmsgtopeer generateblock generatetoaddress generatetodescriptor generate setmocktime mockscheduler',
  // Wallet changes that neither spend, sign nor reveal keys.
  'abandontransaction abortrescan addmultisigaddress createwallet createwalletdescriptor fundrawtransaction getnewaddress',
  'getrawchangeaddress importaddress importprunedfunds importpubkey keypoolrefill loadwallet lockunspent',
  'migratewallet newkeypool psbtbumpfee removeprunedfunds rescanblockchain restorewallet setlabel settxfee',
  'setwalletflag unloadwallet upgradewallet walletcreatefundedpsbt walletlock',
]

const FUNDS_OR_KEYS = [
  // Spend or broadcast.
  'send sendall sendmany sendtoaddress bumpfee sendrawtransaction submitpackage',
  // Sign, unlock, import or reveal private keys and seeds (backupwallet and dumpwallet write them to a file).
  'walletpassphrase walletpassphrasechange encryptwallet dumpprivkey dumpwallet backupwallet importprivkey',
  'importdescriptors importmulti importwallet sethdseed signrawtransactionwithkey signrawtransactionwithwallet',
  'signmessage signmessagewithprivkey walletprocesspsbt descriptorprocesspsbt gethdkeys listdescriptors',
]

const STOPS_OR_DAMAGES = [
  // Stop the node, or mark valid blocks invalid / replace the chainstate (a rollback dump disconnects blocks).
  'stop invalidateblock dumptxoutset loadtxoutset',
]

/** Methods whose parameters carry a passphrase, a private key or a seed: the app never keeps their params. */
export const SECRET_PARAM_METHODS: ReadonlySet<string> = new Set(
  (
    'walletpassphrase walletpassphrasechange encryptwallet createwallet migratewallet importprivkey importdescriptors ' +
    'importmulti sethdseed signrawtransactionwithkey signmessagewithprivkey descriptorprocesspsbt'
  ).split(' '),
)

const TABLE = new Map<string, RiskClass>()
for (const [risk, lines] of [
  ['read_only', READ_ONLY],
  ['wallet_read', WALLET_READ],
  ['changes_state', CHANGES_STATE],
  ['funds_or_keys', FUNDS_OR_KEYS],
  ['stops_or_damages', STOPS_OR_DAMAGES],
] as const) {
  for (const method of lines.join(' ').split(' ')) {
    if (TABLE.has(method)) throw new Error(`RPC method ${method} is classified twice`)
    TABLE.set(method, risk)
  }
}

/** The classified methods, for tests that hold the table against a node's listing. */
export const CLASSIFIED_METHODS: ReadonlySet<string> = new Set(TABLE.keys())

/** A method's class; a name this table does not know (a newer node's method) counts as changing state. */
export function riskOf(method: string): RiskClass {
  return TABLE.get(method.toLowerCase()) ?? 'changes_state'
}

export function hasSecretParams(method: string): boolean {
  return SECRET_PARAM_METHODS.has(method.toLowerCase())
}
