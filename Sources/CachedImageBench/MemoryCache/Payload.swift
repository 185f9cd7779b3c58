/// Stand-in for a decoded image: a class instance, so retain/release is part of every hit.
final class Payload: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}
