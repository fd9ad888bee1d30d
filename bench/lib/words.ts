/**
 * Vocabulary of the generated messages, roughly in order of frequency: function words first, then
 * the words of coding-agent and chat-assistant conversations. Sampled with a Zipf law, so early
 * words are common (`file` lands in roughly one message in six) and late words are uncommon.
 */
export const WORDS: readonly string[] = (
  'the to and a of i you is it in for that this on be with can we file not are have if will ' +
  'what from error please but so do at by run as or your test just need should there all ' +
  'my an one function was use me code let now here check line get make would its add then ' +
  'when new also which server like think data out config see how has them could update fix ' +
  'value build first about because into more some time only version request user work issue ' +
  'change path type return try know any other after call log message output want up working ' +
  'looks still same database table query session model token response set branch commit ' +
  'deploy service script command failed install package import module class method object ' +
  'string number list field default option support found missing running local remote ' +
  'container image cluster node memory disk network port timeout retry cache key index ' +
  'schema migration column row record field parse format json yaml header body endpoint ' +
  'client api route handler middleware auth password permission access role profile account ' +
  'release tag review merge conflict rebase pull push diff patch test suite case assert mock ' +
  'fixture coverage lint warning compile bundle dependency upgrade downgrade rollback restart ' +
  'stop start monitor alert metric dashboard graph chart report summary document page note ' +
  'draft email calendar meeting schedule reminder task project plan goal deadline estimate ' +
  'budget invoice customer order payment price product feature bug ticket priority status ' +
  'queue worker job cron event stream socket buffer thread process signal exception stack ' +
  'trace debug verbose quiet flag argument parameter variable constant environment secret ' +
  'configuration confirm conference infinite definitely sorry thanks great perfect okay sure ' +
  'actually probably maybe instead without between through before while during again already ' +
  'almost always never often sometimes usually quickly slowly carefully exactly really simply ' +
  'weather travel flight hotel recipe dinner coffee morning evening weekend holiday birthday ' +
  'music movie book article paper research question answer explain describe compare translate ' +
  'summarize rewrite shorter longer better worse faster slower bigger smaller cheaper safer'
).split(' ');

/** Each appears in a handful of messages: the rare-term queries. */
export const RARE_WORDS: readonly string[] = (
  'quetzal axolotl pangolin narwhal okapi tardigrade capybara wombat kakapo saola dugong ' +
  'ocelot caracal serval margay numbat quokka bilby kinkajou tapir gharial cassowary potoo ' +
  'hoatzin shoebill takahe kea jacana lyrebird bowerbird'
).split(' ');

/** Stems for identifiers, file names and ticket numbers (a long tail of unique tokens). */
export const IDENT_STEMS: readonly string[] = (
  'src/app lib/util handler service config main index server client worker test/spec ' +
  'migrations/v docs/guide scripts/build PROJ- INC- PR# build-'
).split(' ');

export const IDENT_SUFFIXES: readonly string[] = ['.ts', '.py', '.json', '.yaml', '.md', '.go', '', ''];

/**
 * Chinese and Japanese phrases for the CJK messages. `数据库` (database) appears in several, so the
 * CJK substring query has hits; the trigram index handles text without spaces.
 */
export const CJK_PHRASES: readonly string[] = [
  '数据库迁移失败了',
  '请帮我检查一下数据库连接',
  '服务器今天又重启了',
  '这个函数的返回值不对',
  '我们需要更新配置文件',
  '测试全部通过了',
  '部署到生产环境之前先备份数据库',
  '用户反馈登录很慢',
  '请把这段话翻译成英文',
  '明天上午开会讨论这个问题',
  '缓存好像没有生效',
  '日志里有很多超时错误',
  'データベースのバックアップを取ってください',
  'このエラーの原因を調べてください',
  'サーバーの設定を確認しました',
  'テストが失敗しています',
  '明日の会議の資料をまとめてください',
  '天气预报说周末会下雨',
  '帮我总结一下这篇文章',
  '索引重建需要多长时间',
];
