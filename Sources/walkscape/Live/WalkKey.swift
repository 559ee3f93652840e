import Walk

/// What a key press means to the walk. `q` asks to confirm before quitting, so a pocketed
/// keyboard does not end a walk.
enum WalkKey: Sendable, Hashable {
    case command(WalkAction)
    case togglePause
    case askQuit
    case confirm
    case cancel
    case help

    static func decode(_ byte: UInt8) -> WalkKey? {
        switch byte {
        case UInt8(ascii: " "): .togglePause
        case UInt8(ascii: "n"), UInt8(ascii: "N"): .command(.skip)
        case UInt8(ascii: "p"), UInt8(ascii: "P"): .command(.previous)
        case UInt8(ascii: "r"), UInt8(ascii: "R"): .command(.replay)
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): .askQuit
        case UInt8(ascii: "y"), UInt8(ascii: "Y"): .confirm
        case 27, UInt8(ascii: "c"), UInt8(ascii: "C"): .cancel  // Esc
        case UInt8(ascii: "?"), UInt8(ascii: "h"), UInt8(ascii: "H"): .help
        default: nil
        }
    }
}
