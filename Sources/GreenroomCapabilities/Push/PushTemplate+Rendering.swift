import GreenroomProtocol

extension PushTemplate {
    /// The title and body for `values`: the app's template where it has one, the defaults
    /// elsewhere; the body cut to ``PushSender/bodyLimit`` characters.
    package func render(_ values: [String: String], invitation: Bool) -> (title: String, body: String) {
        func fill(_ text: String) -> String {
            values.reduce(text) { text, pair in text.replacingOccurrences(of: "{{\(pair.key)}}", with: pair.value) }
        }
        var title = fill((invitation ? invitationTitle : self.title) ?? "{{channel.name}}")
        if title.isEmpty { title = values["sender.nickname"] ?? "" }
        var body = fill((invitation ? invitationBody : self.body) ?? (invitation ? "{{sender.nickname}} invited you" : "{{sender.nickname}}: {{message.text}}"))
        if body.count > PushSender.bodyLimit { body = String(body.prefix(PushSender.bodyLimit - 1)) + "…" }
        return (title, body)
    }

    /// Throws unless every field is 1–500 characters.
    package func validate() throws {
        for field in [title, body, invitationTitle, invitationBody].compactMap({ $0 }) where !(1...500).contains(field.count) {
            throw GreenroomError(.invalidParameterValue, "a template field must be 1–500 characters")
        }
    }
}
