// Every word of the interface in Chinese (the default) and English: labels, ranks, reasons,
// problems and errors. A server error is shown by its code, never as the server's own text.

const WORDS = {
  zh: {
    latest: "最新 ↓", latestHelp: "回到最新的一步", surrenderWarning: "确定投降吗? 投降就输了这一局。", sureSurrender: "确定投降",
    botName: "机器人{n}", botTitle: "{level}水平", hqLabel: "营", flagShownMark: "亮", flagRaisedMark: "升",
    noSuchTable: "没有这张桌子: 它可能已经关闭了", noSuchGame: "没有这局棋的记录", noSuchPlayer: "没有名叫 {name} 的玩家",
    gameNotOver: "这局棋还没下完: 下完后才能复盘", toLobby: "回到大厅",
    blockedUsed: "无棋可走 跳过 {n}/{max}", mixedUsed: "跳过 {n}/{max} (超时 {t}, 无棋可走 {b})",
    outTimeouts: "超时 {n} 次", outBlockedSkips: "无棋可走, 跳过 {n} 次", outMixedSkips: "跳过 {n} 次 (超时 {t}, 无棋可走 {b})",
    timedOutLine: "超时, 本轮跳过 (第 {t} 次超时)", blockedLine: "无棋可走, 本轮跳过 (第 {b} 次)", skipsOfMax: "已跳过 {n}/{max}",
    nomYou: "你", nomPartner: "你的队友 {name} ", nomOther: "{name} ", nomSide: "{side}方 {name} ",
    posYou: "你", posPartner: "你的队友 {name} ", posOther: "{name} ", posSide: "{side}方 {name} ",
    head_flag_captured: "扛旗", head_no_live_pieces: "全歼", head_blocked: "无子可走", head_blockedSkips: "无子可走",
    head_skips: "超时", head_skipsMixed: "跳过过多", head_surrender: "投降", head_escape: "逃跑", head_escapeTimeouts: "逃跑 (超时)",
    why_flag_captured: "{whose}的军旗被夺", why_no_live_pieces: "{whose}能走的棋子全被吃光", why_blocked: "{who}无子可走",
    why_blockedSkips: "{who}无棋可走, 被跳过 {n} 次", why_skips: "{who}超时 {n} 次", why_skipsMixed: "{who}被跳过 {n} 次 (超时 {t}, 无棋可走 {b})",
    why_surrender: "{who}投降了", why_escape: "{who}逃跑了", why_escapeTimeouts: "{who}超时次数到了上限, 算逃跑",
    won_flag_captured: "{victor}夺下了 {name} 的军旗", won_no_live_pieces: "{victor}吃掉了 {name} 的最后一个能走的棋子",
    end_agreement: "协议和棋", endWhy_agreement: "各方同意和棋", end_dissolved: "管理员解散", endWhy_dissolved: "管理员解散了对局, 不计分",
    end_move_limit: "步数和棋", endWhy_move_limit: "全局走满 {n} 步", endWhy_move_limit_: "步数到了上限",
    end_no_capture: "久无交战和棋", endWhy_no_capture: "连续 {n} 步没有交战", endWhy_no_capture_: "太久没有交战",
    end_elimination: "分出胜负", end_escape: "逃跑",
    title: "军棋", guest: "游客进入", login: "登录", register: "注册", name: "名字", password: "密码",
    signInHint: "名字 2–20 个字 (汉字、字母、数字、_ 或 -), 新密码至少 8 位", lobby: "大厅", create: "开新桌", sit: "坐下", sitHere: "点击入座",
    watch: "旁观", stand: "站起", ready: "开始", unready: "取消准备", leave: "离开",
    empty: "空位", waiting: "等待中", playing: "对局中", finished: "已结束", profile: "我的战绩",
    points: "积分", titleOf: "军衔", record: "胜/负/和", chat: "聊天", send: "发送",
    auto: "自动布局", confirm: "出征", save: "保存布局", load: "调入布局", export: "导出",
    import: "导入", deploying: "布阵", picking: "选色", redealing: "重新发牌?", bidding: "叫分",
    draw: "求和", accept: "同意", decline: "拒绝", surrender: "投降", yourTurn: "轮到你走棋",
    waitingFor: "等待 {name} 走棋", out: "出局", result: "结果", win: "胜", loss: "负",
    drawn: "和", escape: "逃跑", unscored: "不计", replay: "复盘", prev: "上一步", next: "下一步",
    first: "开始", last: "最后", back: "返回大厅", pass: "不叫",
    redeal: "要求重发", keep: "不用重发", problems: "布局问题", language: "English",
    games: "最近对局", options: "桌规", moveSeconds: "每步秒数", playNow: "马上开始",
    playBots: "和机器人玩", addBot: "加机器人", removeBot: "请走机器人", standIn: "托管: 掉线的玩家由机器人代下",
    standInHelp: "机器人只是代下: 宽限时间到了还没回来, 仍算逃跑",
    standInOnHelp: "机器人替你下, 直到你取消托管; 离开桌子超过宽限时间, 仍算逃跑",
    botLevel: "机器人水平",
    pace: "机器人节奏", paceFast: "快 (0.5秒)", paceNormal: "中 (1.5秒)", paceSlow: "慢 (3秒)",
    paceHelp: "机器人每步至少等这么久再走, 好让你看清每一步", turnTitle: "轮到你走棋",
    notifyShort: "提醒", notifyHelp: "轮到你走棋时, 如果你在别的标签页, 用浏览器通知提醒你",
    notifyDenied: "浏览器不允许通知: 请在浏览器的网站设置里允许", notifyUnsupported: "这个浏览器不支持通知",
    scouting: "工兵侦察", leaderboard: "排行榜", myGames: "我的对局",
    escapeWarning: "逃跑警告: 再逃跑将被禁止入座", escapeBan: "逃跑过多, 暂停入座至",
    easy: "初级", normal: "中级", hard: "高级", bot: "机器人", you: "你", partner: "队友",
    online: "在线", away: "掉线 {s}s", stoodIn: "托管中", deployed: "已出征", deploying_: "布阵中",
    isReady: "已准备", notReady: "未准备", skipsUsed: "超时 {n}/{max}", banker: "庄家",
    teamMark0: "甲", teamMark1: "乙", bankerMark: "庄", idleMark: "闲", mountain: "山 界",
    idle: "闲家", team: "{t}方", toMoveClock: "{s}s", standInOn: "托管", standInOff: "取消托管",
    zoomIn: "放大", zoomOut: "全图", swapSeat: "换座", viewFrom: "点选座位面板, 从那一方看棋盘", swapAsk: "同意换座",
    pickTitle: "选择颜色", pickOrder: "选色顺序", pickYours: "请选择你的颜色",
    pickWait: "等待 {name} 选择颜色", pickLast: "最后一色归桌主 {name}", picked: "已选",
    pickBlind: "盲选: 选色后才发牌",
    redealTitle: "是否要求重发?", redealMay: "你的手牌没有司令、军长、师长，可以要求重发",
    redealMayNot: "你的手牌有大子，不能要求重发", redealWait: "等待其他玩家决定",
    answered: "已答复", thinking: "考虑中", hand: "你的手牌",
    bidTitle: "叫分", bidWait: "等待 {name} 叫分", bidYours: "请叫分", bid1: "灭一家",
    bid2: "灭二家", bid3: "灭三家", noBid: "—", bidOrder: "叫分顺序",
    raiseFlag: "你的司令已阵亡: 请点选一个大本营升军旗", deployHint: "点选或拖动两个棋子交换位置",
    deployDone: "已出征, 等待其他玩家布阵", deployLeft: "布阵剩余 {s}s", layoutLegal: "布局合法",
    lastLayout: "已调入你上一局的布局", autoLayout: "已自动布局",
    proposalDraw: "{name} 提议和棋", proposalSurrender: "{name} 请求投降 (需要你同意)",
        gameOver: "对局结束", youWon: "你赢了!", youLost: "你输了", isDraw: "和棋",
    sideWon: "{names} 获胜", playAgain: "再来一局", seeBoard: "查看棋盘", close: "关闭",
    leaveWarning: "对局进行中, 离开将被判逃跑并扣分。确定离开?", cancel: "取消", sure: "确定离开",
    offline: "连接中断, 正在重新连接…", tooManySockets: "你打开的页面太多了: 请关掉几个, 正在重连…", moves: "第 {n} 步", spectators: "旁观 {n}", seat: "座位 {n}",
    step: "第 {n} / {total} 步", flipped: "翻开", shownFlag: "亮旗", raised: "升旗",
    fight: "交战",     saveName: "布局名称", saved: "已保存: {name}",
    lobbyNote: "选择房间, 开新桌或坐下; 也可以直接和机器人对局",
    colourRed: "红", colourYellow: "黄", colourGreen: "绿", colourBlue: "蓝",
    colourless: "未定色", order0: "先手", order1: "后手", order2: "三手", order3: "四手", flipHint: "点一个背面的棋子翻开, 或走一步自己颜色的棋子",
    paused: "对局暂停, 等待掉线的玩家回来", rejoin: "回到对局", history: "棋谱", on: "开", off: "关", exportJql: "导出QQ布局 (.jql)",
    tracker: "记牌", trackerRank: "棋子", trackerTotal: "共", trackerDead: "已阵亡", trackerLeft: "可能还在",
    trackerHelp: "只算你看到或能确定的; ≤ 表示最多这么多",
    jqlNotOne: "这不是QQ游戏的布局文件 (.jql)", jqlBad: "QQ布局文件里有认不出的棋子", soundOn: "打开声音", soundOff: "关闭声音", perspectiveMark: "视角", pause: "❚❚ 暂停", autoplay: "▶ 自动播放",
    speed: "速度", perspective: "视角", boardOpen: "明棋 (全部亮出)", asSpectator: "旁观者所见", asSeat: "{name} 当时所见",
    linkHere: "本步链接", recentGames: "最近对局", unratedShort: "不计分", goBack: "返回", logout: "退出登录", logoutAll: "全部设备退出", myProfile: "我的资料 (修改密码)",
    changePassword: "修改密码", currentPassword: "当前密码", newPassword: "新密码", confirmPassword: "再输入一次新密码",
    newPasswordHint: "新密码至少 8 位, 不能太常见", passwordMismatch: "两次输入的新密码不一样", passwordNeeded: "请输入当前密码",
    passwordChanged: "密码已修改, 其他设备上的登录已退出", savePassword: "确认修改", saving: "提交中…",
    guestNoPassword: "游客没有密码: 退出登录后注册一个账号, 就可以用名字和密码登录",
    bannedNow: "你的账号已被封禁, 不能登录", addressBannedNow: "你的网络地址上有被封禁的账号: 封禁期间不能从这里登录",
    escapeTimeouts: "超时次数到了上限, 算逃跑", quietTables: "已结束和空闲的桌子 ({n})",
    yourGameOn: "你有一局{variant}正在进行", backOnline: "已重新连接", clockLost: "断线", centre: "中", hiddenPiece: "暗子", flagCarry: "扛旗",
    gameStarted: "开战", timedOut: "超时, 跳过 (第 {n} 次)", blockedSkip: "无棋可走, 跳过 (第 {n} 次)",
    offersDraw: "提议和棋", asksSurrender: "请求投降", proposalLapsed: "提议作废", standInAway: "掉线, 机器人代下 (宽限时间内不回来算逃跑)",
    standInStarts: "开始托管", standInEnds: "取消托管", resumed: "对局继续", kicked: "被请离",
    dissolvedBy: "对局被解散", rated: "计分对局 · 底分 {stake}", unrated: "不计分: {why}",
    unrated_bots: "桌上有机器人", unrated_table_rules: "桌规与房间不同", unrated_not_stored: "结果未能保存",
    unrated_shared_address: "有两个座位来自同一网络地址或同一设备",
    unratedShort_bots: "有机器人", unratedShort_table_rules: "改了桌规", unratedShort_shared_address: "同一地址或设备", unratedShort_not_stored: "未保存",
    repeatRule: "今天同一批玩家的第 {n} 局: {share}", repeatHalf: "积分减半", repeatQuarter: "积分只计四分之一",
    repeatEighth: "积分只计八分之一", repeatNone: "不再计分", repeatShare: "积分只计 {p}%", repeatEscape: "逃跑的扣分不减",
    tableClosed: "桌子无人, 已经关闭", tableLonely: "桌子已经关闭: 长时间只有一个人坐着, 没有开局 (同一地址或同一设备的账号算一个人)", roomClosed: "管理员关闭了这个房间, 这张桌子随之关闭", closedRoom: "已关闭", tableLost: "服务器无法恢复这局棋: 对局作废, 不计分", unrated_null: "", stoodInBy: "托管过: {names}", tapToZoom: "点棋盘放大后走棋", scoutOff: "不侦察", scoutAll: "全体可见",
    scoutTeam: "本队可见", fileBad: "布局文件第 {n} 行无法识别", fileUnreadable: "无法读取这个布局文件",
    commitment: "发牌承诺", seed: "种子", copy: "复制", copied: "已复制", copyFailed: "无法复制, 请手动选中",
    commitmentHelp: "开局前公布的种子哈希 SHA-256(\"junqi-deal:\"+种子); 对局结束后公布种子, 任何人都能验证发牌没有被动过",
    seedHelp: "对局结束后公布的种子: 这局的每一次发牌都由它决定", fairTitle: "公平发牌",
    verifyDealButton: "验证发牌", verifySeedButton: "验证种子", verifying: "验证中…",
    verifyOk: "发牌已验证: 与对局一致", verifySeedOnly: "种子已验证: 与承诺相符",
    verifySeed: "种子的 SHA-256 与公布的承诺相符", verifySeedEarly: "种子的 SHA-256 与你在对局中看到的承诺相符",
    verifyDeal_hands: "按种子重新发牌, {n} 副手牌与对局相同", verifyDeal_flips: "按种子重新发牌, 翻开的 {n} 个棋子与对局相同",
    verifyDeal_board: "按种子重新发牌, 整个棋盘 {n} 个棋子与对局相同",
    verifySeen_hands: "其中有你在对局中拿到的 {n} 副", verifySeen_flips: "包括你在对局中看到翻开的 {n} 个",
    verifySeen_board: "包括你在对局中看到的 {n} 个",
    verifyMine_hands: "按种子重新发牌, 你拿到的 {n} 副手牌与对局相同", verifyMine_flips: "按种子重新发牌, 翻开的 {n} 个棋子与对局相同",
    verifyMine_board: "按种子重新发牌, {n} 个棋子与对局相同",
    verifyNothingDealt: "本局没有发牌: 各方自己布阵 (种子只决定布阵超时时的自动布局)",
    verifyNoHand: "你在这局中没有拿到手牌: 每一副手牌都可以在复盘里核对",
    verifyBadSeed: "验证失败: 种子与承诺不符", verifyBadSeedWhy: "这个种子的 SHA-256 不是开局时公布的承诺",
    verifyBadDeal: "验证失败: 按种子发的牌与对局不一致", verifyWrongSeen: "你在对局中看到的发牌有 {n} 处与种子发的不同", verifyWrongRecord: "对局记录里的发牌有 {n} 处与种子发的不同", verifyError: "无法验证: {why}",
    connected: "已连接", moveQueued: "连接中断: 这步棋会在重新连接后发出", moveNotSent: "连接中断期间局面变了, 这步棋没有再发: 请看棋盘, 需要的话再走一次",
    phrases: "快捷语", phrase_hello: "你好", phrase_hurry: "快点吧", phrase_nice_move: "好棋", phrase_thanks: "谢谢",
    phrase_again: "再来一局", phrase_sorry: "不好意思", phrase_teamwork: "合作愉快", phrase_bye: "再见",
    phraseTooFast: "快捷语发得太快了, 请稍等一会儿", mute: "屏蔽", unmute: "取消屏蔽", muteWho: "屏蔽 {name} 的聊天和快捷语",
    mutedNames: "已屏蔽: {names}",
  },
  en: {
    latest: "Latest ↓", latestHelp: "back to the latest move", surrenderWarning: "Surrender? You lose this game.", sureSurrender: "Surrender",
    botName: "Bot {n}", botTitle: "{level} level", hqLabel: "HQ", flagShownMark: "F", flagRaisedMark: "R",
    noSuchTable: "No such table: it may have closed", noSuchGame: "No record of this game", noSuchPlayer: "No player is called {name}",
    gameNotOver: "This game is still on: its replay opens once it is over", toLobby: "Back to the lobby",
    blockedUsed: "no move, skipped {n}/{max}", mixedUsed: "skipped {n}/{max} ({t} timeouts, {b} no move)",
    outTimeouts: "timed out {n} times", outBlockedSkips: "no legal move, skipped {n} times", outMixedSkips: "skipped {n} times ({t} timeouts, {b} with no legal move)",
    timedOutLine: "timed out, turn lost (timeout {t})", blockedLine: "no legal move, turn skipped ({b})", skipsOfMax: "skipped {n}/{max}",
    nomYou: "you ", nomPartner: "your partner {name} ", nomOther: "{name} ", nomSide: "{name} ({side}) ",
    posYou: "your ", posPartner: "your partner {name}'s ", posOther: "{name}'s ", posSide: "{name}'s ({side}) ",
    head_flag_captured: "Flag captured", head_no_live_pieces: "Wiped out", head_blocked: "No legal move", head_blockedSkips: "No legal move",
    head_skips: "Timeouts", head_skipsMixed: "Too many turns lost", head_surrender: "Surrender", head_escape: "Escape", head_escapeTimeouts: "Escape (timeouts)",
    why_flag_captured: "{whose}flag was captured", why_no_live_pieces: "{whose}last piece that could move was taken", why_blocked: "{who}had no legal move",
    why_blockedSkips: "{who}had no legal move, skipped {n} times", why_skips: "{who}timed out {n} times", why_skipsMixed: "{who}lost {n} turns ({t} timeouts, {b} with no legal move)",
    why_surrender: "{who}surrendered", why_escape: "{who}left the game: an escape", why_escapeTimeouts: "{who}timed out to the limit: an escape",
    won_flag_captured: "{victor}captured {name}'s flag", won_no_live_pieces: "{victor}took {name}'s last piece that could move",
    end_agreement: "Draw by agreement", endWhy_agreement: "every side agreed", end_dissolved: "Dissolved", endWhy_dissolved: "a moderator ended the game: nobody scores",
    end_move_limit: "Draw: move limit", endWhy_move_limit: "the game reached {n} moves", endWhy_move_limit_: "the move limit was reached",
    end_no_capture: "Draw: no fight", endWhy_no_capture: "{n} moves in a row without a fight", endWhy_no_capture_: "too long without a fight",
    end_elimination: "Decided", end_escape: "Escape",
    title: "Junqi", guest: "Play as guest", login: "Sign in", register: "Register", name: "Name",
    password: "Password", signInHint: "A name is 2–20 letters, digits, Chinese characters, _ or -; a new password at least 8 characters",
    lobby: "Lobby", create: "New table", sit: "Sit", sitHere: "tap to sit", watch: "Watch", stand: "Stand up",
    ready: "Ready", unready: "Not ready", leave: "Leave", empty: "empty", waiting: "waiting",
    playing: "playing", finished: "finished", profile: "My record", points: "Points",
    titleOf: "Title", record: "W/L/D", chat: "Chat", send: "Send", auto: "Auto layout",
    confirm: "March (ready)", save: "Save layout", load: "Load layout", export: "Export",
    import: "Import", deploying: "Deploy", picking: "Pick a colour", redealing: "Redeal?",
    bidding: "Bidding", draw: "Offer draw", accept: "Accept", decline: "Decline",
    surrender: "Surrender", yourTurn: "Your move", waitingFor: "{name} to move", out: "out",
    result: "Result", win: "win", loss: "loss", drawn: "draw", escape: "escape",
    unscored: "unscored", replay: "Replay", prev: "Back", next: "Forward", first: "Start",
    last: "End", back: "Back to lobby", pass: "Pass",
    redeal: "Ask for a redeal", keep: "Keep this hand", problems: "Layout problems",
    language: "中文", games: "Recent games", options: "Table rules", moveSeconds: "Seconds a move",
    playNow: "Play now", playBots: "Play with bots", addBot: "Add a bot", removeBot: "Remove bot",
    standIn: "Stand-in: a bot plays for players who are away",
    standInHelp: "The bot only plays meanwhile: a player not back by the end of the grace has escaped all the same",
    standInOnHelp: "A bot plays for you until you take the seat back; away from the table past the grace, you have escaped all the same", botLevel: "Bot level",
    pace: "Bot pace", paceFast: "fast (0.5 s)", paceNormal: "normal (1.5 s)", paceSlow: "slow (3 s)",
    paceHelp: "Bots wait at least this long before each move, so that you can follow every move", turnTitle: "Your turn",
    notifyShort: "Alerts", notifyHelp: "A browser notification when it is your turn while you are in another tab",
    notifyDenied: "The browser does not allow notifications: allow them in its site settings", notifyUnsupported: "This browser has no notifications",
    scouting: "Engineer scouting", leaderboard: "Leaderboard", myGames: "My games",
    escapeWarning: "Escape warning: escape again and you may not sit for a while",
    escapeBan: "Too many escapes: no seat at tables until", easy: "easy", normal: "normal",
    hard: "hard", bot: "bot", you: "you", partner: "partner", online: "online",
    away: "away {s}s", stoodIn: "a bot stands in", deployed: "deployed", deploying_: "deploying",
    isReady: "ready", notReady: "not ready", skipsUsed: "timeouts {n}/{max}", banker: "banker",
    teamMark0: "A", teamMark1: "B", bankerMark: "Bk", idleMark: "Id", mountain: "mountains",
    idle: "idle", team: "team {t}", toMoveClock: "{s}s", standInOn: "Bot plays for me",
    standInOff: "Play myself", zoomIn: "Zoom in", zoomOut: "Whole board", swapSeat: "Swap seats",
    viewFrom: "Click a seat's panel to see the board from there", swapAsk: "Accept swap", pickTitle: "Pick a colour", pickOrder: "Picking order",
    pickYours: "Pick your colour", pickWait: "{name} is picking", pickLast: "The last colour goes to the host, {name}",
    picked: "picked", pickBlind: "Blind pick: hands are dealt after the pick",
    redealTitle: "Ask for a redeal?", redealMay: "Your hand has no field marshal, general or major general: you may ask for a redeal",
    redealMayNot: "Your hand holds a big piece: no redeal", redealWait: "Waiting for the others",
    answered: "answered", thinking: "thinking", hand: "Your hand", bidTitle: "Bidding",
    bidWait: "{name} is bidding", bidYours: "Your bid", bid1: "Take out 1", bid2: "Take out 2",
    bid3: "Take out 3", noBid: "—", bidOrder: "Bidding order",
    raiseFlag: "Your field marshal fell: click one of your HQs to raise the flag there",
    deployHint: "Click or drag two pieces to swap them", deployDone: "Deployed; waiting for the others",
    deployLeft: "{s}s to deploy", layoutLegal: "The layout is legal",
    lastLayout: "Your last game's layout is loaded", autoLayout: "Automatic layout",
    proposalDraw: "{name} offers a draw", proposalSurrender: "{name} asks to surrender (needs your consent)",
        gameOver: "Game over", youWon: "You won!", youLost: "You lost", isDraw: "Draw",
    sideWon: "{names} won", playAgain: "Play again", seeBoard: "See the board", close: "Close",
    leaveWarning: "The game is on: leaving now is an escape and costs points. Leave?",
    cancel: "Cancel", sure: "Leave", offline: "Connection lost: reconnecting…",
    tooManySockets: "Too many pages of yours are open: close some; reconnecting…", moves: "move {n}",
    spectators: "{n} watching", seat: "seat {n}", step: "move {n} / {total}", flipped: "flipped",
    shownFlag: "shown flag", raised: "raised flag",     fight: "fight", saveName: "Layout name",
    saved: "Saved: {name}", lobbyNote: "Pick a room, open a table or sit down; or play bots at once",
    colourRed: "red", colourYellow: "yellow", colourGreen: "green", colourBlue: "blue",
    colourless: "no colour yet", order0: "first", order1: "second", order2: "third", order3: "fourth", flipHint: "Click a face-down piece to flip it, or move a piece of your colour",
    paused: "Paused until the absent player is back", rejoin: "Back to my game", history: "Moves", on: "on", off: "off", exportJql: "Export QQ layout (.jql)",
    tracker: "Piece tracker", trackerRank: "Piece", trackerTotal: "Total", trackerDead: "Dead", trackerLeft: "May remain",
    trackerHelp: "Only what you have seen or can be sure of; ≤ means at most",
    jqlNotOne: "this is not a QQ Games layout file (.jql)", jqlBad: "the QQ layout file holds an unknown piece", soundOn: "Sound on", soundOff: "Sound off", perspectiveMark: "view", pause: "❚❚ Pause", autoplay: "▶ Autoplay",
    speed: "Speed", perspective: "Seen by", boardOpen: "the board open", asSpectator: "a spectator",
    asSeat: "{name}, as they knew it", linkHere: "Link to this move", recentGames: "Recent games", unratedShort: "unrated", goBack: "Back", logout: "Log out", logoutAll: "Log out everywhere", myProfile: "My profile (change password)",
    changePassword: "Change password", currentPassword: "Current password", newPassword: "New password", confirmPassword: "New password again",
    newPasswordHint: "At least 8 characters, and not a common one", passwordMismatch: "The two new passwords differ", passwordNeeded: "Enter your current password",
    passwordChanged: "Password changed; your other sessions were signed out", savePassword: "Save the new password", saving: "Sending…",
    guestNoPassword: "Guests have no password: log out and register an account to sign in with a name and a password",
    bannedNow: "Your account is banned: no sign-in", addressBannedNow: "An account banned from your address: no sign-in from it while the ban lasts",
    escapeTimeouts: "timed out to the limit: an escape", quietTables: "Finished and idle tables ({n})",
    yourGameOn: "Your game of {variant} is on", backOnline: "Back online", clockLost: "offline", centre: "centre", hiddenPiece: "a hidden piece",
    flagCarry: "picks up the flag", gameStarted: "the battle begins", timedOut: "timed out, turn lost ({n})",
    blockedSkip: "no legal move, skipped ({n})", offersDraw: "offers a draw", asksSurrender: "asks to surrender",
    proposalLapsed: "the offer lapsed", standInAway: "away: a bot plays until they are back (not back in time: an escape)", standInStarts: "a bot plays for them",
    standInEnds: "plays again", resumed: "play goes on", kicked: "removed", dissolvedBy: "the game was dissolved", rated: "Rated · stake {stake}", unrated: "Not rated: {why}",
    unrated_bots: "bots at the table", unrated_table_rules: "the table changed the room's rules", unrated_not_stored: "the result could not be stored",
    unrated_shared_address: "two seats share an address or a device",
    unratedShort_bots: "bots", unratedShort_table_rules: "own rules", unratedShort_shared_address: "shared address", unratedShort_not_stored: "not stored",
    repeatRule: "{nth} game of the same players today: {share}", repeatHalf: "half points", repeatQuarter: "a quarter of the points",
    repeatEighth: "an eighth of the points", repeatNone: "no points any more", repeatShare: "{p}% of the points", repeatEscape: "an escape still costs in full",
    tableClosed: "the table closed: nobody sat at it", tableLonely: "the table closed: only one person sat at it for a while, with no game on (accounts of one address or device count as one)", roomClosed: "an admin closed the room, and this table with it", closedRoom: "closed", tableLost: "the server could not take this game back: it is void, nobody scores", unrated_null: "", stoodInBy: "a bot stood in for {names}", tapToZoom: "tap the board to zoom in", scoutOff: "off",
    scoutAll: "shown to all", scoutTeam: "shown to the team", fileBad: "line {n} of the layout file cannot be read",
    fileUnreadable: "the layout file cannot be read",
    commitment: "Deal commitment", seed: "Seed", copy: "Copy", copied: "Copied", copyFailed: "Could not copy: select it by hand",
    commitmentHelp: "The SHA-256 of the seed (of \"junqi-deal:\" + seed), shown before the deal; the seed is published when the game is over, so anyone can check that the deal was not changed",
    seedHelp: "Published when the game is over: it decided every deal of this game", fairTitle: "Fair deal",
    verifyDealButton: "Verify the deal", verifySeedButton: "Verify the seed", verifying: "Verifying…",
    verifyOk: "Deal verified: it matches the game", verifySeedOnly: "Seed verified: it matches the commitment",
    verifySeed: "The seed's SHA-256 is the published commitment", verifySeedEarly: "The seed's SHA-256 is the commitment you saw during the game",
    verifyDeal_hands: "Dealt again from the seed, every hand is the one played ({n})", verifyDeal_flips: "Dealt again from the seed, every flipped piece is the one played ({n})",
    verifyDeal_board: "Dealt again from the seed, the whole board ({n} pieces) is the one played",
    verifySeen_hands: "{n} of them as you got them in the game", verifySeen_flips: "{n} of them as you saw them flipped in the game",
    verifySeen_board: "{n} of them as you saw them in the game",
    verifyMine_hands: "Dealt again from the seed, the hands you got are the ones it deals ({n})", verifyMine_flips: "Dealt again from the seed, every flipped piece is the one played ({n})",
    verifyMine_board: "Dealt again from the seed, every piece is the one played ({n})",
    verifyNothingDealt: "Nothing was dealt: each player laid out their own army (the seed only decides automatic layouts at the deadline)",
    verifyNoHand: "You were dealt no hand in this game: every hand can be checked in the replay",
    verifyBadSeed: "Verification failed: the seed does not match the commitment", verifyBadSeedWhy: "This seed's SHA-256 is not the commitment published at the start",
    verifyBadDeal: "Verification failed: the deal from the seed is not the one played", verifyWrongSeen: "what you were shown in the game differs from the seed's deal in {n} places", verifyWrongRecord: "the game's record differs from the seed's deal in {n} places", verifyError: "Could not verify: {why}",
    connected: "Online", moveQueued: "Connection lost: your move goes out once reconnected", moveNotSent: "The game moved on while you were reconnecting, so your move was not sent again: check the board, and play it again if need be",
    phrases: "Quick phrases", phrase_hello: "Hello", phrase_hurry: "Hurry up, please", phrase_nice_move: "Nice move", phrase_thanks: "Thanks",
    phrase_again: "One more game", phrase_sorry: "Sorry", phrase_teamwork: "Good teamwork", phrase_bye: "Bye",
    phraseTooFast: "Too many quick phrases: wait a moment", mute: "Mute", unmute: "Unmute", muteWho: "Mute {name}'s chat and phrases",
    mutedNames: "Muted: {names}",
  },
};

// 自动匹配: quick match and its seat draw, 验证座位 (quick.js, seatdraw.js)
Object.assign(WORDS.zh, {
  quickTitle: "自动匹配", quickNote: "系统按军衔等级 (初/中/高) 为你找对手, 座位和队友由事先承诺的种子抽出, 谁都不能挑",
  quickMatch: "自动匹配", mode_hidden: "暗棋", mode_partners_open: "双明", mode_open: "明棋",
  queueing: "正在匹配 {variant} · {mode}", queueSize: "排队 {n} 人", queueWaited: "已等 {s} 秒",
  queueBands: "匹配等级: {bands}", band_beginner: "初级", band_intermediate: "中级", band_advanced: "高级",
  queueCancel: "取消匹配", queueBotsOffer: "等的时间有点长了: 可以让机器人补满空位开局 (不计分), 也可以继续等",
  queueBots: "加机器人开局", queueKeep: "继续等", queueLost: "排队信息丢失了, 已重新排队",
  seatCommitment: "座位承诺", seatCommitmentHelp: "组桌前公布的座位种子哈希 SHA-256(\"junqi-seats:\"+种子); 对局结束后公布种子, 任何人都能重算座位",
  verifySeatsButton: "验证座位", seatsOk: "座位已验证: 由承诺的种子抽出, 没有人挑选队友",
  seatsHash: "种子的 SHA-256 与公布的座位承诺相符", seatsSeenEarly: "也与你在组桌时看到的承诺相符",
  seatsOrder: "{n} 位玩家按名字排序后, 按种子洗牌, 与实际座位相同", seatsAttempt: "第 {n} 次抽签 (之前的抽签会让上一局的队友再做队友)",
  seatsBad: "验证失败: 座位与种子不符", seatsBadHash: "种子与座位承诺不符", seatsBadOrder: "按种子重算的座位与实际座位不同",
});
Object.assign(WORDS.en, {
  quickTitle: "Quick match", quickNote: "We find players of your level (beginner, intermediate, advanced); seats and partners come from a seed committed in advance: nobody chooses them",
  quickMatch: "Quick match", mode_hidden: "hidden", mode_partners_open: "partners open", mode_open: "open",
  queueing: "Finding players: {variant} · {mode}", queueSize: "{n} waiting", queueWaited: "waited {s} s",
  queueBands: "Levels: {bands}", band_beginner: "beginner", band_intermediate: "intermediate", band_advanced: "advanced",
  queueCancel: "Cancel", queueBotsOffer: "This is taking a while: bots may fill the empty seats (unrated), or keep waiting",
  queueBots: "Play with bots now", queueKeep: "Keep waiting", queueLost: "The queue lost your place: you are queued again",
  seatCommitment: "Seat commitment", seatCommitmentHelp: "The hash SHA-256(\"junqi-seats:\"+seed) published before the table was formed; the seed is published after the game, so anyone can recompute the seats",
  verifySeatsButton: "Verify seats", seatsOk: "Seats verified: drawn from the committed seed, nobody chose partners",
  seatsHash: "the seed's SHA-256 is the published seat commitment", seatsSeenEarly: "and the one you were shown when the table was formed",
  seatsOrder: "the {n} players, sorted by name and shuffled by the seed, sit as they sat", seatsAttempt: "draw number {n} (the earlier ones would have made last game's partners partners again)",
  seatsBad: "Verification failed: the seats do not match the seed", seatsBadHash: "the seed does not hash to the seat commitment", seatsBadOrder: "the seats recomputed from the seed are not the seats played",
});

// 标记: the player's private marks on hidden enemy pieces (marks.js)
Object.assign(WORDS.zh, {
  markTitle: "标记", markPrivate: "只有你自己看得到", markLabel: "自定义 (最多 4 字)", markOk: "标上",
  markClear: "清除标记", markClose: "关闭", markGuess_bomb: "炸?", markGuess_landmine: "雷?", markGuess_flag: "旗?",
});
Object.assign(WORDS.en, {
  markTitle: "Mark", markPrivate: "only you see it", markLabel: "Own label (up to 4)", markOk: "Mark",
  markClear: "Clear the mark", markClose: "Close", markGuess_bomb: "B?", markGuess_landmine: "M?", markGuess_flag: "F?",
});

// 好友, 关注, 屏蔽: friends, follows, blocks and presence (friends.js)
Object.assign(WORDS.zh, {
  friends: "好友", friendsOnline: "{n}/{of} 在线", friendsGuest: "注册账号后才能加好友", noFriends: "还没有好友: 输入名字加一个",
  friendRequests: "好友申请", friendAccept: "接受", friendDecline: "拒绝", waitingAnswer: "等待对方回应", withdraw: "撤回",
  friendName: "玩家名字", addFriend: "加好友", friendAsked: "已向 {name} 发出好友申请", friendMade: "你和 {name} 成了好友",
  presence_offline: "离线", presence_online: "在线 (大厅)", presence_watching: "旁观中", presence_seated: "在桌旁等待", presence_playing: "对局中",
  joinFriend: "去他那桌", watchFriend: "去观战",
  removeFriend: "删除好友", acceptFriend: "接受好友申请", withdrawFriend: "撤回好友申请", follow: "关注", unfollow: "取消关注",
  block: "屏蔽", unblock: "取消屏蔽", isFriend: "你的好友 ·", asksYou: "想加你为好友 ·", followersCount: "{n} 人关注",
  youBlock: "你已屏蔽此人: 看不到他的聊天, 也不和他同桌", blockedUsers: "屏蔽名单", noneBlocked: "你没有屏蔽任何人",
  tableBlocked: "这桌有玩家屏蔽了你: 不能再观看", requestsWaiting: "{n} 个申请",
});
Object.assign(WORDS.en, {
  friends: "Friends", friendsOnline: "{n}/{of} online", friendsGuest: "Register to add friends", noFriends: "No friends yet: add one by name",
  friendRequests: "Friend requests", friendAccept: "Accept", friendDecline: "Decline", waitingAnswer: "waiting for an answer", withdraw: "Withdraw",
  friendName: "Player's name", addFriend: "Add friend", friendAsked: "Friend request sent to {name}", friendMade: "You and {name} are friends",
  presence_offline: "offline", presence_online: "online (lobby)", presence_watching: "watching", presence_seated: "at a table", presence_playing: "playing",
  joinFriend: "Join", watchFriend: "Watch",
  removeFriend: "Remove friend", acceptFriend: "Accept friend request", withdrawFriend: "Withdraw request", follow: "Follow", unfollow: "Unfollow",
  block: "Block", unblock: "Unblock", isFriend: "Your friend ·", asksYou: "Asks to be your friend ·", followersCount: "{n} followers",
  youBlock: "You block this player: you see none of their chat, nor share a table", blockedUsers: "Blocked players", noneBlocked: "You block nobody",
  tableBlocked: "A player at this table blocks you: you may watch it no more", requestsWaiting: "{n} waiting",
});
// friend rooms (好友房), invites and rematch (gathering.js)
Object.assign(WORDS.zh, {
  createFriendRoom: "创建好友房", friendRoom: "好友房", friendRoomNote: "好友房不在大厅里列出: 把房间号或链接发给朋友, 他们就能进来",
  roomCode: "房间号", enterCode: "输入房间号", join: "加入", passwordOptional: "密码 (可不填)", needPassword: "这个好友房要密码: 请输入密码再加入",
  reserveSeats: "给好友留座 (填好友的名字)", friendSeatName: "好友的名字", watchSetting: "旁观", watch_anyone: "有链接的人都能看",
  watch_friends: "只有我的好友能看", watch_nobody: "不许旁观", createRoom: "创建", copyLink: "复制链接", linkCopied: "链接已复制",
  hasPassword: "有密码", reservedFor: "{n}号座留给 {name}", inviteFriend: "邀请好友", invite: "邀请", inviteSent: "已邀请 {name}",
  invitedBy: "{name} 邀请你一起下{variant}", arrange: "调座位", arrangeTo: "换到", arrangeGo: "对调",
  rematchAgreed: "同意再来一局: {names}", rematchNone: "还没有人同意再来一局", rematchRotate: "再来一局 · 换搭档",
  rematchWithdraw: "不来了", rematchWaiting: "等其他人同意…", rematchRotating: "{n} 人想换搭档 (大家都选才换)",
  yourFriendRoom: "你在好友房 {code} ({variant})", tablePrivate: "好友房的主人不让旁观这局棋", unrated_friend_room: "这个房间的好友房不计分", unratedShort_friend_room: "好友房",
});
Object.assign(WORDS.en, {
  createFriendRoom: "Friend room", friendRoom: "Friend room", friendRoomNote: "Friend rooms are not listed in the lobby: send the code or the link to your friends to let them in",
  roomCode: "Room code", enterCode: "Room code", join: "Join", passwordOptional: "Password (optional)", needPassword: "This friend room asks for a password: type it and join",
  reserveSeats: "Keep seats for friends (their names)", friendSeatName: "a friend's name", watchSetting: "Watching", watch_anyone: "anyone with the link",
  watch_friends: "my friends only", watch_nobody: "nobody", createRoom: "Create", copyLink: "Copy link", linkCopied: "Link copied",
  hasPassword: "password set", reservedFor: "seat {n} kept for {name}", inviteFriend: "Invite a friend", invite: "Invite", inviteSent: "{name} is invited",
  invitedBy: "{name} invites you to a game of {variant}", arrange: "Move seats", arrangeTo: "to", arrangeGo: "Swap",
  rematchAgreed: "Play again: {names}", rematchNone: "Nobody has agreed to play again yet", rematchRotate: "Play again · new partners",
  rematchWithdraw: "Not again", rematchWaiting: "Waiting for the others…", rematchRotating: "{n} asked for new partners (all must ask)",
  yourFriendRoom: "You sit in friend room {code} ({variant})", tablePrivate: "The host lets no one watch this game", unrated_friend_room: "this room's friend rooms are not rated", unratedShort_friend_room: "friend room",
});

const VARIANTS = {
  zh: { siguo: "四国军棋", luanzhan: "乱战四国", sandayi: "三打一", sanguo: "三国军棋", liangguo: "二人暗棋", fanqi: "翻棋" },
  en: { siguo: "Four-player Junqi", luanzhan: "Four-player free-for-all", sandayi: "Three against one",
    sanguo: "Three-player Junqi", liangguo: "Two-player Junqi", fanqi: "Flip Junqi" },
};

// on the board: the Chinese names in both languages, or the numbers English players use
const RANK_LABEL = {
  zh: {
    supreme_marshal: "元帅", field_marshal: "司令", general: "军长", major_general: "师长",
    brigadier: "旅长", colonel: "团长", major: "营长", captain: "连长", lieutenant: "排长",
    engineer: "工兵", landmine: "地雷", bomb: "炸弹", flag: "军旗", missile: "导弹", fortress: "堡垒",
  },
  en: {
    supreme_marshal: "41", field_marshal: "40", general: "39", major_general: "38",
    brigadier: "37", colonel: "36", major: "35", captain: "34", lieutenant: "33",
    engineer: "En", landmine: "Mn", bomb: "Bm", flag: "Fl", missile: "Ms", fortress: "Ft",
  },
};

const RANK_NAME_EN = {
  supreme_marshal: "supreme marshal", field_marshal: "field marshal", general: "general",
  major_general: "major general", brigadier: "brigadier", colonel: "colonel", major: "major",
  captain: "captain", lieutenant: "lieutenant", engineer: "engineer", landmine: "landmine",
  bomb: "bomb", flag: "flag", missile: "missile", fortress: "fortress",
};

// officer order, big to small, then the rest (docs/rules.md §1): how hands and lists are sorted
export const RANK_ORDER = [
  "supreme_marshal", "field_marshal", "general", "major_general", "brigadier", "colonel", "major",
  "captain", "lieutenant", "engineer", "bomb", "landmine", "missile", "fortress", "flag",
];

const REASONS = {
  zh: { elimination: "全歼对方", escape: "有人逃跑", no_capture: "久无交战, 判和", move_limit: "步数已满, 判和",
    agreement: "双方同意和棋", dissolved: "管理员解散" },
  en: { elimination: "a side was wiped out", escape: "a player escaped", no_capture: "too long without a fight: draw",
    move_limit: "move limit reached: draw", agreement: "drawn by agreement", dissolved: "dissolved by a moderator" },
};

const ELIMINATIONS = {
  zh: { flag_captured: "军旗被夺", no_live_pieces: "无子可用", skips: "跳过过多", blocked: "无棋可走",
    surrender: "投降", escape: "逃跑" },
  en: { flag_captured: "flag captured", no_live_pieces: "no pieces left", skips: "too many turns lost",
    blocked: "no legal move", surrender: "surrendered", escape: "escaped" },
};

const OUTCOMES = {
  zh: { attacker: "守方阵亡", defender: "攻方阵亡", both: "同归于尽" },
  en: { attacker: "defender dies", defender: "attacker dies", both: "both die" },
};

const PROBLEMS = {
  zh: {
    unknown_station: "不是本棋盘的位置", outside_own_arm: "棋子只能放在自己的阵地",
    piece_in_camp: "行营开局必须空着", unknown_rank: "未知的棋子", too_many_pieces: "这种棋子太多了",
    missing_pieces: "还有棋子没有摆上", empty_station: "阵地上还有空位", flag_not_in_hq: "军旗必须放在大本营",
    landmine_outside_back_rows: "地雷只能放在最后两排", bomb_in_front_row: "炸弹不能放在第一排",
    colour_not_in_hand: "手牌中没有这种颜色的棋子",
  },
  en: {
    unknown_station: "not a station of this board", outside_own_arm: "pieces go on your own arm only",
    piece_in_camp: "camps start empty", unknown_rank: "unknown piece", too_many_pieces: "too many of this piece",
    missing_pieces: "some pieces are not placed yet", empty_station: "a station of your arm is empty",
    flag_not_in_hq: "the flag goes in an HQ", landmine_outside_back_rows: "landmines only in the last two rows",
    bomb_in_front_row: "no bomb in the front row", colour_not_in_hand: "no piece of that colour in your hand",
  },
};

const ERRORS = {
  zh: {
    bad_json: "消息格式错误", bad_message: "消息格式错误", bad_command: "无法识别的操作", too_large: "消息太长", no_room: "没有这个房间",
    room_full: "房间已满, 请换一个房间", no_table: "这张桌子已经不在了", bad_seat: "这个座位不能坐",
    seat_taken: "这个座位已经有人了", game_running: "对局进行中, 现在不能换座", not_seated: "请先坐下",
    not_playing: "现在没有你的对局", stale_version: "局面已变化, 请再试一次", not_allowed: "你不能这样做",
    not_your_seat: "这不是你的座位", not_your_turn: "还没轮到你", stood_in: "机器人正在托管, 请先取消托管",
    paused: "对局暂停中, 等待掉线的玩家", illegal: "规则不允许这样走", illegal_layout: "布局不合法",
    malformed: "无法识别的操作", too_long: "太长了", rate_limited: "操作太频繁, 请稍等",
    escape_ban: "逃跑过多, 暂时不能入座", wrong_channel: "聊天频道不对",
    not_watching: "先打开这张桌子, 才能和旁观者聊天", empty_chat: "这句话里没有能显示的文字", muted: "你已被禁言",
    not_owner: "只有室主或管理员可以这样做", moved: "桌子正在转移, 请稍后再试",
    unavailable: "服务器暂时无法保存, 请再试一次", bad_option: "桌规设置不正确: 桌子只能在允许范围内改用时和和棋限制", too_many_tables: "你开的桌子已经够多了: 请坐到其中一张, 或等空桌自动关闭", bad_level: "没有这个机器人水平",
    room_closed: "这个房间已关闭: 不能再开新桌或开始新对局, 进行中的对局照常下完",
    unauthorized: "登录已失效, 请重新登录", wrong_login: "名字或密码不对", forbidden: "你被禁止登录", conflict: "这个名字已经有人用了",
    validation: "输入不正确: {field}", validation_string_too_long: "{field}太长了",
    validation_string_too_short: "{field}太短了", validation_string_pattern_mismatch: "{field}里有不允许的字符", network: "网络错误, 请重试", server: "服务器出错了, 请重试",
    name_taken: "这个名字已经有人用了", layout_exists: "你已经有同名的布局", not_found: "没有找到",
    no_user: "没有这个玩家", body_too_large: "内容太大, 服务器不接收", layout_too_large: "布局的棋子比棋盘的位置还多", layout_impossible: "这手牌无法摆成合法布局", internal: "服务器出了点问题, 请再试一次",
    name_invalid: "名字 2–20 个字 (汉字、字母、数字、_ 或 -)", name_control: "名字里不能有控制字符或看不见的字符",
    name_mixed_scripts: "名字不能混用不同的文字 (汉字可以和拉丁字母一起用)", name_reserved: "这个名字是保留的, 请换一个",
    name_look_alike: "这个名字和已有的名字太像了, 请换一个", password_blank: "密码不能全是空格",
    password_common: "这个密码太常见了, 请换一个", password_short: "新密码至少要 8 位",
    wrong_password: "当前密码不对", login_wait: "这个名字的密码输错太多次, 请稍后再试",
    login_wait_seconds: "这个名字的密码输错太多次, 请 {s} 秒后再试", busy: "服务器正忙, 请过几秒再试",
    busy_seconds: "服务器正忙, 请 {s} 秒后再试", foreign_origin: "请从本站自己的页面登录",
    address_tables: "你的网络地址开的桌子已经够多了: 请坐到其中一张, 或等空桌自动关闭",
    playing_elsewhere: "你在另一张桌子还有一局没下完: 请先下完那一局",
    own_table: "室主不能处理自己坐着的桌子或自己在下的对局: 请找管理员",
    bad_mark: "只能标记敌方的暗子: 标一个军衔, 或最多 4 个字", too_many_marks: "这一局的标记改得太多了",
    guest_limit: "你的网络地址今天的游客次数已满, 请注册账号", address_banned: "你的网络地址上有被封禁的账号: 封禁期间不能从这里登录、注册或游客进入",
    unknown_phrase: "没有这句快捷语",
    no_quick_match: "这个玩法现在没有开放的房间, 无法匹配", already_queued: "你已经在排队了",
    not_queued: "你不在排队中 (桌子可能正在组成)", bots_not_yet: "再等一会儿才能加机器人",
  },
  en: {
    bad_json: "malformed message", bad_message: "malformed message", bad_command: "unknown command", too_large: "message too long",
    no_room: "no such room", room_full: "the room is full: try another", no_table: "that table is gone",
    bad_seat: "you cannot sit there", seat_taken: "that seat is taken", game_running: "the game is on: seats stay",
    not_seated: "sit down first", not_playing: "you have no game running here", stale_version: "the board changed: try again",
    not_allowed: "you may not do that", not_your_seat: "that is not your seat", not_your_turn: "it is not your turn",
    stood_in: "a bot plays for you: take the seat back first", paused: "the game waits for a player to come back",
    illegal: "the rules do not allow that", illegal_layout: "the layout is not legal", malformed: "unreadable action",
    too_long: "too long", rate_limited: "too fast: wait a little", escape_ban: "too many escapes: no seat for a while",
    wrong_channel: "wrong chat channel", not_watching: "open the table to chat with its spectators",
    empty_chat: "that line has nothing to show", muted: "you are muted", not_owner: "only the room owner or an admin may",
    moved: "the table is moving: try again in a moment", unavailable: "the server could not keep that: try again",
    bad_option: "the table rules are not valid: a table may change only the clocks and draw limits, within bounds", too_many_tables: "you have enough tables open: sit at one, or let an empty one close", bad_level: "no such bot level",
    room_closed: "this room is closed: no new tables or games in it; the games on finish as ever",
    unauthorized: "your login ended: please sign in again", wrong_login: "wrong name or password", forbidden: "you may not sign in", conflict: "that name is taken",
    validation: "invalid input: {field}", validation_string_too_long: "the {field} is too long",
    validation_string_too_short: "the {field} is too short",
    validation_string_pattern_mismatch: "the {field} holds characters that are not allowed", network: "network error: try again", server: "server error: try again",
    name_taken: "that name is taken", layout_exists: "you have a layout of that name already",
    not_found: "not found", no_user: "no such player", body_too_large: "that is too large for the server to take", layout_too_large: "the layout has more pieces than the board has stations", layout_impossible: "no legal layout can hold this hand", internal: "something went wrong on the server: please try again",
    name_invalid: "a name is 2–20 letters, digits, Chinese characters, _ or -",
    name_control: "a name may not hold control or invisible characters",
    name_mixed_scripts: "a name is written in one script (Chinese characters may go with Latin letters)",
    name_reserved: "that name is reserved: choose another", name_look_alike: "that name looks too like a taken one: choose another",
    password_blank: "a password may not be only spaces", password_common: "that password is too common: choose another",
    password_short: "a new password needs at least 8 characters", wrong_password: "the current password is wrong",
    login_wait_seconds: "too many wrong passwords for this name: try again in {s} s", busy: "the server is busy: try again in a few seconds",
    busy_seconds: "the server is busy: try again in {s} s", foreign_origin: "sign in from this site's own pages",
    address_tables: "enough tables are open from your address: sit at one of them, or let an empty one close",
    playing_elsewhere: "you are playing a game at another table: finish it first",
    own_table: "a room owner may not judge a table he sits at or a game he plays: ask an admin",
    bad_mark: "only the enemy's hidden pieces take marks: a rank, or up to 4 characters", too_many_marks: "too many mark changes in this game",
    login_wait: "too many wrong passwords for this name: wait a little", guest_limit: "no more guests from your address today: please register",
    address_banned: "an account banned from your address: no sign-in, new account or guest from it while the ban lasts",
    unknown_phrase: "no such quick phrase",
    no_quick_match: "no open room plays this: no quick match for it now", already_queued: "you are queued already",
    not_queued: "you are not in the queue (your table may be forming)", bots_not_yet: "bots are offered after a little more waiting",
  },
};

// refusals of friends, follows and blocks (friends.js; docs/protocol.md, "Friends, follows and blocks")
Object.assign(ERRORS.zh, {
  registered_only: "注册账号后才能加好友、关注和屏蔽", blocked: "你们之间有屏蔽: 不能同桌、观战、加好友或关注",
  no_request: "对方没有向你发出好友申请", not_friends: "你们不是好友", not_following: "你没有关注此人", not_blocked: "你没有屏蔽此人",
  already_friends: "你们已经是好友了", already_asked: "你已经发过申请了, 等待对方回应", already_following: "你已经关注了此人",
  already_blocked: "你已经屏蔽了此人", too_many: "数量已达上限 (200): 请先撤回或取消一些", self: "这是你自己", guest_user: "对方是游客: 游客不能加好友或被关注",
});
Object.assign(ERRORS.en, {
  registered_only: "register to add friends, follow or block", blocked: "a block stands between you: no shared table, watching, friend request or follow",
  no_request: "that player has not asked you", not_friends: "you are not friends", not_following: "you do not follow that player", not_blocked: "you do not block that player",
  already_friends: "you are friends already", already_asked: "you asked already: wait for an answer", already_following: "you follow that player already",
  already_blocked: "you block that player already", too_many: "that is the most you may have (200): undo some first", self: "that is you", guest_user: "that player is a guest: guests have no friends or followers",
});
Object.assign(ERRORS.zh, {
  no_code: "没有这个房间号的好友房", room_password: "好友房的密码不对", seat_reserved: "这个座位留给了别的好友",
  watch_refused: "好友房的主人不让旁观这局棋", no_user: "没有这个名字的玩家",
  no_rematch: "对局结束后才能再来一局",
});
Object.assign(ERRORS.en, {
  no_code: "no friend room has this code", room_password: "wrong password for this friend room", seat_reserved: "that seat is kept for another friend",
  watch_refused: "the host lets no one watch this game", no_user: "no player has that name",
  no_rematch: "a rematch comes after a game",
});

const FIELDS = {
  zh: { name: "名字", password: "密码", text: "内容" },
  en: { name: "name", password: "password", text: "text" },
};
// a layout's name is the same field as a player's to the server, not to the player
const LAYOUT_FIELDS = {
  zh: { name: "布局名称" },
  en: { name: "layout name" },
};

export function language() {
  return localStorage.getItem("junqi.lang") || "zh";
}

export function toggleLanguage() {
  localStorage.setItem("junqi.lang", language() === "zh" ? "en" : "zh");
  document.documentElement.lang = language();
}

// A word, with {placeholders} filled from ``values``.
export function t(key, values = {}) {
  const text = WORDS[language()][key] ?? WORDS.zh[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

// titles (军衔, engine/levels.py) in English, by the rank each is named after
const TITLES_EN = {
  兵: "Private", 副班长: "Vice Squad Leader", 正班长: "Squad Leader", 副排长: "Vice Lieutenant", 排长: "Lieutenant",
  副连长: "Vice Captain", 连长: "Captain", 副营长: "Vice Major", 营长: "Major", 副团长: "Vice Colonel", 团长: "Colonel",
  副旅长: "Vice Brigadier", 旅长: "Brigadier", 副师长: "Vice Major General", 师长: "Major General",
  副军长: "Vice General", 军长: "General", 司令: "Field Marshal",
};

export const variantName = (key) => VARIANTS[language()][key] ?? key;
// a player's title (the server names it in Chinese) in the reader's language
export const titleName = (title) => (language() === "en" ? TITLES_EN[title] ?? title : title) ?? "";
// a room's name in the reader's language: in English its ``name_en``, or, for a room without
// one whose name is Chinese, its variant and id
export function roomName(room) {
  if (!room) return "";
  if (language() !== "en") return room.name;
  return room.name_en ?? (/[\u3400-\u9fff]/.test(room.name) ? `${variantName(room.variant)} · ${room.id}` : room.name);
}
export const rankLabel = (rank) => RANK_LABEL[language()][rank] ?? "";
export const rankName = (rank) => (language() === "zh" ? RANK_LABEL.zh[rank] : RANK_NAME_EN[rank]) ?? "?";
export const reasonText = (reason) => REASONS[language()][reason] ?? reason;
export const eliminationText = (reason) => ELIMINATIONS[language()][reason] ?? reason;
export const outcomeText = (outcome) => OUTCOMES[language()][outcome] ?? outcome;
export const problemText = (code) => PROBLEMS[language()][code] ?? code;
export const colourName = (army) => t(["colourRed", "colourYellow", "colourGreen", "colourBlue"][army] ?? "colourless");

// A server error (a socket error code, or a REST status and body) in the player's words.
export function errorText(error) {
  const words = ERRORS[language()];
  const code = error?.code;
  if (code === "validation") {
    const field = (error.layout ? LAYOUT_FIELDS : FIELDS)[language()][error.field] ?? error.field ?? "";
    const text = words[`validation_${error.kind}`] ?? words.validation;
    return text.replace("{field}", field);
  }
  // a refusal that says how long to wait (Retry-After) says it in seconds
  const timed = error.retryAfter !== undefined && words[`${code}_seconds`];
  if (timed) return timed.replace("{s}", String(error.retryAfter));
  return words[code] ?? words.server;
}

// Why a game is not rated, in words (``short``: for a table's line in the lobby).
export function unratedText(why, short = false) {
  const words = WORDS[language()];
  return (short ? words[`unratedShort_${why}`] : words[`unrated_${why}`]) ?? "";
}

const ordinal = (n) => {
  if (language() === "zh") return String(n);
  const tens = n % 100, ones = n % 10;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[ones] ?? "th";
  return `${n}${suffix}`;
};

// The repeat rule of a rated game (server/store.py): the ``repeat``-th rated game of the same
// people within a day keeps ``factor`` of its points; "" when it kept them all. ``escaped``: a
// seat escaped, whose penalty the rule never lessens.
export function repeatText(scoring, escaped = false) {
  const factor = scoring?.factor ?? 1;
  if (!scoring?.rated || !(factor < 1)) return "";
  const key = { 0.5: "repeatHalf", 0.25: "repeatQuarter", 0.125: "repeatEighth", 0: "repeatNone" }[factor];
  const share = key ? t(key) : t("repeatShare", { p: Math.round(factor * 1000) / 10 });
  const text = t("repeatRule", { n: scoring.repeat, nth: ordinal(scoring.repeat), share });
  return escaped ? `${text} (${t("repeatEscape")})` : text;
}

// The rules page (rules.js) and the newcomer's guide (guide.js): sentences filled from the
// server's facts of a room (GET /api/rooms/<room>/rules), never rules of the client's own.
const RULE_WORDS = {
  zh: {
    rulesTitle: "规则", guideOpen: "新手引导", tableChanges: "本桌改了房间的桌规 ({names}), 不计分", tableSame: "本桌按房间的桌规下",
    opt_deploy_seconds: "布阵时间", opt_move_seconds: "每步时间", opt_max_skips: "超时次数", opt_no_capture_plies: "无交战判和步数",
    opt_max_total_moves: "总步数上限", opt_draw_proposals: "求和次数", opt_surrender_after_seconds: "投降等待时间",
    opt_disconnect_grace_seconds: "掉线宽限", opt_engineer_scouting: "工兵侦察",
    section_board: "棋盘", section_pieces: "棋子", section_movement: "走法", section_combat: "战斗", section_deployment: "布阵",
    section_clocks: "时间", section_draws: "和棋与投降", section_information: "看得见什么", section_scoring: "计分",
    section_penalties: "逃跑与惩罚", section_own: "本玩法特有的规则",
    boardStations: "棋盘共 {n} 个位置: {posts} 个兵站, {camps} 个行营, {hqs} 个大本营",
    boardArms: "{seats} 方, 每方的阵地 {rows} 行 {cols} 列", boardRails: "{n} 个位置在铁路上 (粗线), 铁路有 {lines} 条直线",
    boardCentre: "中间是九宫: {n} 个铁路站, 连通各方", boardMountain: "两方阵地隔着山界相对, 只有铁路跨过山界; 山界上不能停子",
    teamsFixed: "对家是队友: 两人一队, 消灭对方两家才赢", teamsBanker: "一家做庄, 其余 {n} 家是一队的闲家", teamsNone: "{n} 家各自为战",
    armyEach: "每方 {n} 个棋子 ({seats} 方一样):", piecesAll: "全局共 {n} 个棋子:",
    handsFaceDown: "{n} 个棋子全部背面朝上随机摆在棋盘上, 不布阵", handsEach: "随机发牌, 每人 {n} 个棋子",
    handsBanker: "每人先发 {each} 个, 剩下 {bottom} 个做底牌 (含 {specials}); 庄家从底牌拿 {keeps} 个, 共 {banker} 个; 每个闲家另加 {extra} 个排长, 共 {idle} 个",
    moveRoad: "公路 (细线): 每次走一格, 行营的斜线也算", moveRail: "铁路 (粗线): 沿一条直线走任意远, 路上不能有棋子挡着",
    moveTurners: "{ranks}在铁路上可以拐弯, 沿铁路走到任何连通的空位", moveCamps: "行营里的棋子不能被攻击; 空行营谁都可以进, 有子的行营不能进",
    hqLock: "进了大本营的棋子 (包括布阵时放进去的) 再也不能动", hqFree: "大本营不锁棋子: 进去的棋子还可以走出来",
    moveImmobile: "{ranks}不能移动", turn_clockwise: "按顺时针轮流走棋", turn_counter_clockwise: "按逆时针轮流走棋",
    attackerWins: "胜", defenderWins: "负", bothDie: "同", combatRanks: "军衔大小: {ranks}; 大吃小, 同级同归于尽",
    mineClear: "{ranks}能挖地雷", mineRestTrade: "其他棋子碰地雷和地雷同归于尽", mineRestDie: "其他棋子碰地雷阵亡",
    mineTradeRestDie: "{ranks}碰地雷同归于尽, 其他棋子碰地雷阵亡",
    bombTakesFlag: "炸弹碰谁都同归于尽, 但炸弹可以夺军旗", bombTradesFlag: "炸弹碰谁都同归于尽, 碰军旗也一样",
    hqDig: "挖大本营: 攻击大本营里的棋子, 不论大小都赢",
    scouting_off: "工兵侦察: 不侦察", scouting_all: "工兵侦察: 工兵撞死时, 对方棋子的军衔所有人都看得见",
    scouting_team: "工兵侦察: 工兵撞死时, 对方棋子的军衔本队看得见",
    combatTable: "战斗表: 每种棋子进攻每种棋子", attackerDefender: "攻 \\ 守", combatLegend: "胜: 守方阵亡; 负: 攻方阵亡; 同: 同归于尽 (守方不在大本营时)",
    deploySeconds: "开局前 {s} 秒布阵, 大家同时布; 到时间没出征的按草稿自动补全", flagInHq: "军旗必须放在大本营",
    landmineRows: "地雷只能放在第 {rows} 排 (最后两排)", bombsFrontYes: "炸弹可以放在第一排", bombsFrontNo: "炸弹不能放在第一排",
    campsEmpty: "行营开局必须空着", dealtFlags: "随机发牌可能没有军旗或有多面: 没有军旗就任选两个棋子守两个大本营; 多面军旗只留一面 (或两个大本营各一面), 其余当军长",
    extraMines: "地雷超过 {n} 个时, 多出的可以放在第 4 排",
    moveSeconds: "每步 {s} 秒, 超时就跳过这一步", maxSkips: "被跳过 {n} 次出局",
    timeoutsEscape: "自己超时到了上限算逃跑; 无子可走被跳过不算", timeoutsOut: "超时到了上限出局, 不算逃跑",
    blockedDefeat: "轮到你却无棋可走, 当场出局", blockedSkip: "轮到你却无棋可走, 自动跳过 (也算一次)",
    noCaptureNone: "不因久无交战判和", noCapture: "连续 {n} 步没有交战, 判和", moveLimitNone: "没有总步数上限", moveLimit: "总共 {n} 步判和",
    proposals: "每人每局可以求和 {n} 次, 其他还在局中的玩家都同意才和", proposalsShared: "每人每局求和与投降请求合计 {n} 次",
    proposalsAfter: "总共走满 {n} 步后才能求和或投降", surrenderNo: "不能投降", surrenderAfter: "开战 {s} 秒后才能投降",
    surrenderAny: "随时可以投降", surrenderPartner: "闲家投降要其他闲家同意, 庄家投降立即判负",
    info_hidden: "暗棋: 只看得见自己棋子的军衔", info_partners_open: "双明: 看得见自己和队友棋子的军衔", info_open: "明棋: 所有棋子的军衔都看得见",
    marshalShowsFlag: "司令阵亡后, 亮出他那一方的军旗", marshalShowsNothing: "司令阵亡不亮军旗", commanderDeaths: "司令或元帅阵亡时, 所有人都会知道",
    stakes: "底分按桌上军衔最低的玩家: 初级 {beginner}, 中级 {intermediate}, 高级 {advanced}",
    score_qq: "赢家各得底分, 输家各扣底分, 和棋不计", score_lianzhong: "赢家各得底分, 输家各扣底分, 和棋不计",
    score_sanguo: "不乘底分: 第一个出局的扣 {x} 分, 淘汰他的人得 {x} 分; 第二个出局的扣 {y} 分; 最后剩下的得 {z} 分",
    score_sandayi: "叫灭 N 家: 庄家赢得 3N 倍底分, 每个闲家扣 N 倍; 庄家输则反过来; 和棋按出局的闲家数计",
    ratedWithBots: "本房间和机器人下也计分", unratedWithBots: "桌上有机器人不计分", ratedFriendRooms: "本房间的好友房也计分", unratedFriendRooms: "好友房不计分", tableMayChange: "开桌时可以改的桌规: {names}; 改了就不计分",
    minutes: "{n} 分钟", hours: "{n} 小时",
    escapeCost: "逃跑 (中途离开、掉线不回、超时到上限) 扣 {n} 倍底分",
    escape_qq: "有人逃跑对局结束: 他那一方没人了对方才算赢, 否则只有逃跑的人扣分",
    escape_lianzhong: "有人逃跑对局结束: 不满 {rounds} 轮只有逃跑的人扣分, 满了对方算赢",
    escape_sanguo: "逃跑扣 {z} 分, 其他人不得分, 剩下的人继续下", escape_sandayi: "逃跑的人当场出局并扣 2 倍底分; 闲家逃跑算庄家灭了一家",
    grace: "掉线 {s} 秒内回来不算逃跑", gracePause: "有人掉线对局暂停, {s} 秒内回来不算逃跑",
    escapeBans: "逃跑记 {days} 天: 第 1 次警告, 之后依次禁止入座 {bans}",
    ownPick: "开局先盲选颜色: 最后走棋的先选, 桌主拿剩下的颜色; 选完才发牌", ownRedeal: "手里没有司令、军长、师长的可以要求重发, 每局最多 {n} 次",
    ownBids: "叫分做庄: 每人叫一次, 不叫或叫 {contracts}, 要比前面的高; 都不叫就重发", ownFlip: "每步翻开一个背面的棋子, 或走一步自己颜色的棋子; 第一个翻出工兵的人执那个颜色",
    ownFlagCarry: "扛旗: 挖掉对方 {n} 个地雷后, 自己最小的军官可以扛起自己的军旗, 扛进对方大本营就赢",
    ownDealtFlags: "手里的军旗决定怎样出局: 一面军旗在大本营, 被夺就出局; 两个大本营各一面, 两个都被攻下才出局; 没有军旗而有司令, 司令活着时任一大本营被攻下就出局, 最后一个司令阵亡时在一个大本营升军旗 (庄家不升旗)",
    ownRandomSeats: "随机防作弊: 座位由系统随机分配", ownFirstStrike: "先攻先胜: 一次交战同时让两家无子, 守方先出局",
    guideOfferTitle: "第一次来?", guideOffer: "花两分钟在真的棋盘上认识铁路、行营、大本营、棋子和布阵, 然后和机器人下一局",
    guideStart: "新手引导", guideSkip: "跳过", guideBack: "上一步", guideNext: "下一步", guideRules: "看这个房间的全部规则",
    guideYourArm: "标出的是你的阵地: 你的棋子都摆在这里", guideFlag: "夺下一家的军旗, 这一家就出局",
    guideSwap: "这是一个自动布局: 布阵时点两个棋子交换位置, 摆好后按出征", guidePlay: "点棋子看它能走到哪里, 再点目标走棋; 准备好了就和机器人下一局吧",
    guide_board: "棋盘", guide_rails: "铁路和公路", guide_camps: "行营", guide_hqs: "大本营", guide_centre: "九宫",
    guide_mountain: "山界", guide_pieces: "棋子", guide_combat: "战斗", guide_deploy: "布阵", guide_play: "开始下棋",
  },
  en: {
    rulesTitle: "Rules", guideOpen: "Newcomer's guide", tableChanges: "This table changed its room's rules ({names}): unrated", tableSame: "This table plays by its room's rules",
    opt_deploy_seconds: "deployment time", opt_move_seconds: "time per move", opt_max_skips: "timeouts", opt_no_capture_plies: "moves without a fight",
    opt_max_total_moves: "move limit", opt_draw_proposals: "draw offers", opt_surrender_after_seconds: "wait before surrender",
    opt_disconnect_grace_seconds: "disconnect grace", opt_engineer_scouting: "engineer scouting",
    section_board: "Board", section_pieces: "Pieces", section_movement: "Moving", section_combat: "Fights", section_deployment: "Deployment",
    section_clocks: "Clocks", section_draws: "Draws and surrender", section_information: "What you see", section_scoring: "Scoring",
    section_penalties: "Escapes and penalties", section_own: "This game's own rules",
    boardStations: "{n} stations: {posts} posts, {camps} camps, {hqs} headquarters",
    boardArms: "{seats} sides, each with an arm of {rows} rows by {cols} columns", boardRails: "{n} stations lie on the railway (thick lines), in {lines} straight lines",
    boardCentre: "In the middle, {n} railway stations join the sides", boardMountain: "The two arms face each other across the mountain line; only rails cross it, and nothing stops on it",
    teamsFixed: "Partners sit opposite: two against two, and a side wins when both opponents are out", teamsBanker: "One player is the banker; the other {n} play together against the banker", teamsNone: "{n} players, each on their own",
    armyEach: "Each side has {n} pieces (all {seats} alike):", piecesAll: "{n} pieces in the game:",
    handsFaceDown: "All {n} pieces lie face down at random on the board: no deployment", handsEach: "Pieces are dealt at random: {n} each",
    handsBanker: "{each} pieces each are dealt, the other {bottom} (with {specials}) make the bottom; the banker takes {keeps} of them, {banker} in all; each other player gets {extra} more lieutenants, {idle} in all",
    moveRoad: "Roads (thin lines): one step a move, along a camp's diagonals too", moveRail: "Rails (thick lines): any distance along one straight line, while nothing stands in the way",
    moveTurners: "Turn corners on the railway, to any empty station the rails reach: {ranks}", moveCamps: "A piece in a camp cannot be attacked; anyone may enter an empty camp, nobody an occupied one",
    hqLock: "A piece in a headquarters (placed there or entering) never moves again", hqFree: "Headquarters lock nothing: a piece may leave one",
    moveImmobile: "Never move: {ranks}", turn_clockwise: "Turns go clockwise", turn_counter_clockwise: "Turns go counter-clockwise",
    attackerWins: "win", defenderWins: "lose", bothDie: "both", combatRanks: "Ranks: {ranks}; the higher rank wins, equal ranks both die",
    mineClear: "Clears a landmine: {ranks}", mineRestTrade: "anything else that hits one dies together with it", mineRestDie: "anything else that hits one dies",
    mineTradeRestDie: "dies together with it: {ranks}; anything else that hits one dies",
    bombTakesFlag: "A bomb and whatever it meets both die, but a bomb may take the flag", bombTradesFlag: "A bomb and whatever it meets both die, the flag too",
    hqDig: "Digging: an attack on a piece in a headquarters wins, whatever the ranks",
    scouting_off: "Engineer scouting: off", scouting_all: "Engineer scouting: when an engineer dies attacking, everyone sees the rank it hit",
    scouting_team: "Engineer scouting: when an engineer dies attacking, its team sees the rank it hit",
    combatTable: "Fight table: each piece attacking each piece", attackerDefender: "attacker \\ defender", combatLegend: "win: the defender dies; lose: the attacker dies; both: both die (a defender out of a headquarters)",
    deploySeconds: "{s} s to deploy before play, all at once; an unfinished layout is completed automatically", flagInHq: "The flag goes in a headquarters",
    landmineRows: "Landmines only in rows {rows} (the last two)", bombsFrontYes: "Bombs may stand in the front row", bombsFrontNo: "No bomb in the front row",
    campsEmpty: "Camps start empty", dealtFlags: "A dealt hand may hold no flag or several: with none, any two pieces hold the two headquarters; with several, one flag stays (or one in each headquarters) and the others play as generals",
    extraMines: "With more than {n} landmines, the extra ones may stand in row 4",
    moveSeconds: "{s} s a move; a timeout skips the turn", maxSkips: "Skipped {n} times, a player is out",
    timeoutsEscape: "Reaching the limit by your own timeouts is an escape; skips for having no move are not", timeoutsOut: "Reaching the limit puts you out, not as an escape",
    blockedDefeat: "With no legal move on your turn you are out at once", blockedSkip: "With no legal move on your turn, the turn is skipped (and counts)",
    noCaptureNone: "No draw for want of fights", noCapture: "{n} moves in a row without a fight: draw", moveLimitNone: "No move limit", moveLimit: "{n} moves in all: draw",
    proposals: "{n} draw offers per player and game; a draw needs everyone still playing to agree", proposalsShared: "{n} draw offers and surrender requests together per player and game",
    proposalsAfter: "Draw offers and surrenders only after {n} moves in all", surrenderNo: "No surrender", surrenderAfter: "Surrender only after {s} s of play",
    surrenderAny: "Surrender at any time", surrenderPartner: "An idle player's surrender needs the other idle players; a banker's loses at once",
    info_hidden: "Hidden: you see the ranks of your own pieces only", info_partners_open: "Partners open: you see your own and your partner's ranks", info_open: "Open: every rank is seen",
    marshalShowsFlag: "When a field marshal dies, its side's flag is shown", marshalShowsNothing: "A field marshal's death shows no flag", commanderDeaths: "Everyone is told when a field marshal or supreme marshal dies",
    stakes: "The stake is the lowest-ranked player's: beginner {beginner}, intermediate {intermediate}, advanced {advanced}",
    score_qq: "Winners gain the stake, losers lose it, a draw moves nothing", score_lianzhong: "Winners gain the stake, losers lose it, a draw moves nothing",
    score_sanguo: "Raw points: the first out loses {x}, and whoever put them out gains {x}; the second out loses {y}; the last standing gains {z}",
    score_sandayi: "A contract to put out N: a winning banker gains 3N stakes and each idle player loses N; the other way round if the banker loses; a draw by the idle players out",
    ratedWithBots: "Games with bots are rated in this room", unratedWithBots: "Games with bots are not rated", ratedFriendRooms: "Friend rooms are rated in this room", unratedFriendRooms: "Friend rooms are not rated", tableMayChange: "A new table may change: {names}; a table that does plays unrated",
    minutes: "{n} min", hours: "{n} h",
    escapeCost: "An escape (leaving, not coming back, timeouts to the limit) costs {n} times the stake",
    escape_qq: "An escape ends the game: the opponents win only if the escaper's side has nobody left; otherwise only the escaper scores",
    escape_lianzhong: "An escape ends the game: before {rounds} rounds only the escaper scores, after them the opponents win",
    escape_sanguo: "An escaper loses {z}, nobody gains, and the others play on", escape_sandayi: "An escaper is out at once and pays 2 stakes; an idle escaper counts as one more put out by the banker",
    grace: "Back within {s} s after a disconnect, it is no escape", gracePause: "A disconnect pauses the game; back within {s} s, it is no escape",
    escapeBans: "Escapes are remembered {days} days: the first is a warning, then no seat for {bans}",
    ownPick: "Colours are picked blind first: the last to move picks first, the host gets the colour left; the deal follows", ownRedeal: "A hand without field marshal, general or major general may ask for a redeal, at most {n} a game",
    ownBids: "Bidding for the bank: one bid each, a pass or {contracts}, above the bids before; all pass, deal again", ownFlip: "Each turn flip a face-down piece or move a piece of your colour; whoever flips the first engineer plays its colour",
    ownFlagCarry: "Carrying the flag: once your engineers dug out the opponent's {n} landmines, your smallest officer may carry your flag; into an opponent headquarters, it wins",
    ownDealtFlags: "The flags in your hand say how you fall: one flag in a headquarters, its capture puts you out; a flag in each, both headquarters taken; no flag but a field marshal, either headquarters taken while a field marshal lives, and when the last one dies you raise the flag on one of them (a banker raises none)",
    ownRandomSeats: "Random seats against collusion: the platform seats players", ownFirstStrike: "The attacker's advantage: when one fight empties two players, the defender is out first",
    guideOfferTitle: "New here?", guideOffer: "Two minutes on the real board: rails, camps, headquarters, pieces and deployment, then a game against bots",
    guideStart: "Newcomer's guide", guideSkip: "Skip", guideBack: "Back", guideNext: "Next", guideRules: "All the rules of this room",
    guideYourArm: "The marked stations are your arm: your pieces stand here", guideFlag: "Take a player's flag and that player is out",
    guideSwap: "This is an automatic layout: while deploying, click two pieces to swap them, then press March", guidePlay: "Click a piece to see where it may go, then click where to move; ready? Play a game against bots",
    guide_board: "The board", guide_rails: "Rails and roads", guide_camps: "Camps", guide_hqs: "Headquarters", guide_centre: "The centre",
    guide_mountain: "The mountain line", guide_pieces: "Pieces", guide_combat: "Fights", guide_deploy: "Deployment", guide_play: "Let's play",
  },
};

// A sentence of the rules page or the guide, with {placeholders} filled.
export function ruleText(key, values = {}) {
  const text = RULE_WORDS[language()][key] ?? RULE_WORDS.zh[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}
