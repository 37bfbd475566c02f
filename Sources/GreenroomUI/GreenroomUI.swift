// GreenroomUI: platform-neutral view models (`@Observable`, delegates) for the seeds'
// screens. The view models arrive with the chat and stage capabilities they bind to.
import Greenroom
