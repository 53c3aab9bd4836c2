"""Quick phrases (快捷语) at a table, as two players see them: one tap says one, the other
player's page shows it in its own language at the speaker's seat panel and as a chat line;
muting the speaker hides their phrases and chat lines for that reader alone, after a reload
too; too many phrases are refused in words. Debian's Chromium through Playwright."""

from __future__ import annotations

from playwright.sync_api import Browser

from tests.web.ui import DESKTOP, enter_as_guest, needs_chromium, says, shot, state, watch_errors

pytestmark = needs_chromium


def test_a_phrase_shows_in_the_readers_language_and_muting_hides_it(
    server: str, browser: Browser
) -> None:
    host = browser.new_context(viewport=DESKTOP).new_page()
    errors = watch_errors(host)
    enter_as_guest(host, server)
    host.click("button.create[data-room='duel']")
    host.wait_for_selector(".seat-panel[data-seat]")
    table, name = state(host, "table.id"), state(host, "user.name")
    seat = state(host, "table.snapshot.you")
    reader = browser.new_context(viewport=DESKTOP).new_page()
    errors += watch_errors(reader)
    enter_as_guest(reader, server)
    reader.click("#lang")  # the reader reads English
    reader.click(f"button.sit[data-table='{table}'][data-seat='{1 - seat}']")
    reader.wait_for_function(f"() => window.junqi.table?.snapshot?.you === {1 - seat}")

    host.click("[data-phrase-key='nice_move']")  # one tap
    line = f".chat .lines p[data-phrase='nice_move'][data-from='{name}']"
    says(reader, line, "Nice move")
    bubble = f".seat-panel[data-seat='{seat}'] .bubble[data-bubble='nice_move']"
    says(reader, bubble, "Nice move")
    says(host, line, "好棋")  # the speaker's own page says it in Chinese
    says(host, bubble, "好棋")
    shot(reader, "phrase-bubble")
    reader.wait_for_selector(bubble, state="detached", timeout=8000)  # a bubble, not a banner

    # the reader mutes the host: their phrases and chat lines go, for the reader alone
    reader.click(f".chat .lines p[data-from='{name}'] button.mute")
    reader.wait_for_selector(line, state="detached")
    host.click("[data-phrase-key='hello']")
    host.fill("#chat input[name=text]", "看这里")
    host.press("#chat input[name=text]", "Enter")
    says(host, f".chat .lines p[data-from='{name}']:last-child", "看这里")
    reader.wait_for_function(  # both came to the reader's page, and are not shown
        "(table) => window.junqi.chat.filter((c) => c.table === table).length >= 3", arg=table
    )
    reader.wait_for_timeout(200)
    assert reader.locator(f".chat .lines p[data-from='{name}']").count() == 0
    assert reader.locator(".bubble").count() == 0
    says(reader, ".chat .muted-names", name)
    reader.reload()  # kept in this browser
    reader.wait_for_function(f"() => window.junqi.table?.snapshot?.you === {1 - seat}")
    host.click("[data-phrase-key='thanks']")
    reader.wait_for_function("() => window.junqi.chat.some((c) => c.key === 'thanks')")
    reader.wait_for_timeout(200)
    assert reader.locator(".bubble").count() == 0
    assert reader.locator(f".chat .lines p[data-from='{name}']").count() == 0
    reader.click(f".chat .muted-names button[data-unmute='{name}']")  # heard again
    host.click("[data-phrase-key='bye']")
    says(reader, f".seat-panel[data-seat='{seat}'] .bubble", "Bye")

    # past the limit (10 a minute), a phrase is refused in words
    for _ in range(8):
        host.click("[data-phrase-key='hurry']")
    says(host, "#notice", "快捷语发得太快了")
    assert errors == []
    host.context.close()
    reader.context.close()
