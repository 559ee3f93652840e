import Foundation
import Walk
import WalkRuntime
import WalkscapeKit

/// The live walk's face: the redrawn status area on a terminal, plain log lines otherwise, and the
/// key handling that needs the screen (quit confirmation, help).
final class LiveWalkUI: @unchecked Sendable {
    private let terminal: TerminalSession?
    private let color: Bool
    private let plain: PlainWalkLog
    private let lock = NSLock()
    private var last: LiveWalkStatus?
    private var prompt: String?
    private var showHelp = false

    init(terminal: TerminalSession?, color: Bool, plain: PlainWalkLog = PlainWalkLog()) {
        self.terminal = terminal
        self.color = color
        self.plain = plain
    }

    func show(_ status: LiveWalkStatus) {
        lock.lock()
        last = status
        lock.unlock()
        redraw()
    }

    /// Draws the last status again (the screen was given up for a while: Ctrl-Z, then `fg`).
    func redrawAll() { redraw() }

    private func redraw() {
        lock.lock()
        let status = last, prompt = prompt, showHelp = showHelp
        lock.unlock()
        guard let status else { return }
        if let terminal {
            let view = StatusView(width: terminal.width, color: color, prompt: prompt, showHelp: showHelp)
            terminal.draw(view.render(status))
        } else {
            plain.update(status)
        }
    }

    /// Keys become commands; `q` asks first, `?` toggles the help.
    func handle(keys: AsyncStream<WalkKey>, commands: AsyncStream<WalkAction>.Continuation) async {
        var confirmingQuit = false
        for await key in keys {
            switch key {
            case .askQuit:
                confirmingQuit = true
                setPrompt("Quit the walk? Progress is kept. y = quit, any other key = go on")
            case .confirm where confirmingQuit:
                confirmingQuit = false
                setPrompt(nil)
                commands.yield(.quit)
            case .help:
                lock.withLock { showHelp.toggle() }
                redraw()
            case .togglePause:
                confirmingQuit = false
                setPrompt(nil)
                let paused = lock.withLock { last?.progress.isPaused ?? false }
                commands.yield(paused ? .resume : .pause)
            case .command(let command):
                confirmingQuit = false
                setPrompt(nil)
                commands.yield(command)
            case .confirm, .cancel:
                confirmingQuit = false
                setPrompt(nil)
            }
        }
    }

    private func setPrompt(_ text: String?) {
        lock.withLock { prompt = text }
        redraw()
    }
}
