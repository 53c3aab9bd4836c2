// Words of the interface in Chinese (default) and English. Piece names stay Chinese on the board.

const WORDS = {
  zh: {
    title: "军棋", guest: "游客进入", login: "登录", register: "注册", name: "名字", password: "密码",
    lobby: "大厅", rooms: "房间", create: "开新桌", sit: "坐下", watch: "旁观", stand: "站起",
    ready: "开始", unready: "取消", leave: "离开", seat: "座位", empty: "空位", status: "状态",
    waiting: "等待", playing: "进行中", finished: "已结束", profile: "我的战绩", points: "积分",
    titleOf: "军衔", record: "胜/负/和", chat: "聊天", send: "发送", auto: "自动布局",
    confirm: "出征", check: "检查", save: "保存布局", load: "调入布局", export: "导出", import: "导入",
    deploying: "布阵", picking: "选色", redealing: "重新发牌?", bidding: "叫分",
    draw: "求和", accept: "同意", decline: "拒绝", surrender: "投降", yourTurn: "轮到你走",
    toMove: "走棋", skips: "超时", away: "掉线", out: "出局", result: "结果", win: "胜",
    loss: "负", drawn: "和", escape: "逃跑", unscored: "不计", replay: "复盘", prev: "上一步",
    next: "下一步", share: "分享链接", back: "返回大厅", pass: "不叫", redeal: "要求重发",
    keep: "不用", raise: "升军旗", problems: "布局问题", spectators: "旁观聊天", language: "English",
    games: "最近对局", deadline: "剩余", options: "桌规", moveSeconds: "每步秒数",
    playNow: "马上开始 (机器人)", addBot: "加机器人", standIn: "托管", botLevel: "机器人水平",
    information: "明暗", hidden: "暗棋", partnersOpen: "双明", open: "明棋", scouting: "工兵侦察",
    leaderboard: "排行榜", myGames: "我的对局", escapeWarning: "逃跑警告: 再逃跑将被禁止入座",
    escapeBan: "逃跑过多, 暂停入座至",
  },
  en: {
    title: "Junqi", guest: "Play as guest", login: "Sign in", register: "Register", name: "Name",
    password: "Password", lobby: "Lobby", rooms: "Rooms", create: "New table", sit: "Sit",
    watch: "Watch", stand: "Stand", ready: "Ready", unready: "Not ready", leave: "Leave",
    seat: "Seat", empty: "empty", status: "Status", waiting: "waiting", playing: "playing",
    finished: "finished", profile: "My record", points: "Points", titleOf: "Title",
    record: "W/L/D", chat: "Chat", send: "Send", auto: "Auto layout", confirm: "March (ready)",
    check: "Check", save: "Save layout", load: "Load layout", export: "Export", import: "Import",
    deploying: "Deploy", picking: "Pick a colour", redealing: "Redeal?", bidding: "Bid",
    draw: "Offer draw", accept: "Accept", decline: "Decline", surrender: "Surrender",
    yourTurn: "Your move", toMove: "to move", skips: "skips", away: "away", out: "out",
    result: "Result", win: "win", loss: "loss", drawn: "draw", escape: "escape",
    unscored: "unscored", replay: "Replay", prev: "Back", next: "Forward", share: "Share link",
    back: "Back to lobby", pass: "Pass", redeal: "Ask for a redeal", keep: "Keep", raise: "Raise flag",
    problems: "Layout problems", spectators: "Spectator chat", language: "中文",
    games: "Recent games", deadline: "left", options: "Table rules", moveSeconds: "Seconds a move",
    playNow: "Play now (with bots)", addBot: "Add a bot", standIn: "Bot stands in for absent players",
    botLevel: "Bot level",
    information: "Information", hidden: "hidden", partnersOpen: "partners open", open: "open",
    scouting: "Engineer scouting", leaderboard: "Leaderboard", myGames: "My games",
    escapeWarning: "Escape warning: escape again and you may not sit for a while",
    escapeBan: "Too many escapes: no seat at tables until",
  },
};

export const RANK_SHORT = {
  supreme_marshal: "帅", field_marshal: "司令", general: "军长", major_general: "师长",
  brigadier: "旅长", colonel: "团长", major: "营长", captain: "连长", lieutenant: "排长",
  engineer: "工兵", landmine: "地雷", bomb: "炸弹", flag: "军旗", missile: "导弹", fortress: "堡垒",
};

export function language() {
  return localStorage.getItem("junqi.lang") || "zh";
}

export function toggleLanguage() {
  localStorage.setItem("junqi.lang", language() === "zh" ? "en" : "zh");
}

export function t(key) {
  return WORDS[language()][key] ?? key;
}
