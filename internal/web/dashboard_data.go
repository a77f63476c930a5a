package web

import "time"

// Dashboard is what the dashboard shows at one moment. The node fills it
// (DashboardOptions.Source); the handler adds the clock (Now,
// UptimeSeconds) and the bridge services' rates. Its JSON form is the
// dashboard's API: the page, the JSON answer and each Server-Sent Event
// carry the same document.
type Dashboard struct {
	Version       string    `json:"version"`
	Started       time.Time `json:"started"`
	Now           time.Time `json:"now"`
	UptimeSeconds int64     `json:"uptime_seconds"`
	// Realms are every realm of the node with its counts, in config order.
	Realms []DashboardRealm `json:"realms"`
	// Realm is the realm the query asked for (or the first one) in
	// detail; nil when the node has no realm or the asked one is unknown.
	Realm *DashboardRealmDetail `json:"realm"`
	// BridgeServices are the HTTP bridge services (caller, publisher,
	// webhook) and REST components (callee, subscriber), in config order.
	BridgeServices []DashboardBridgeService `json:"bridge_services"`
	// SubscriberQueues are the Subscriber components' delivery queues.
	SubscriberQueues []DashboardQueue `json:"subscriber_queues"`
	// ProxyWorkers are the proxy workers, in config order.
	ProxyWorkers []DashboardProxyWorker `json:"proxy_workers"`
}

// DashboardRealm is one realm and what lives on it.
type DashboardRealm struct {
	Name          string `json:"name"`
	Sessions      int    `json:"sessions"`
	Registrations int    `json:"registrations"`
	Subscriptions int    `json:"subscriptions"`
}

// DashboardRealmDetail is one realm's sessions (one page of them, oldest
// first), registrations and subscriptions (the first ones, by URI).
type DashboardRealmDetail struct {
	Name     string             `json:"name"`
	Sessions []DashboardSession `json:"sessions"`
	// SessionsTotal is the number of sessions; Page (from 1) of Pages is
	// the one listed, PageSize sessions a page.
	SessionsTotal      int                     `json:"sessions_total"`
	Page               int                     `json:"page"`
	Pages              int                     `json:"pages"`
	PageSize           int                     `json:"page_size"`
	Registrations      []DashboardRegistration `json:"registrations"`
	RegistrationsTotal int                     `json:"registrations_total"`
	Subscriptions      []DashboardSubscription `json:"subscriptions"`
	SubscriptionsTotal int                     `json:"subscriptions_total"`
}

// DashboardSession is one joined session.
type DashboardSession struct {
	ID         uint64    `json:"id"`
	AuthID     string    `json:"authid"`
	AuthRole   string    `json:"authrole"`
	AuthMethod string    `json:"authmethod"`
	Transport  string    `json:"transport"`
	Serializer string    `json:"serializer"`
	Peer       string    `json:"peer"` // "" for the node's own sessions
	Joined     time.Time `json:"joined"`
}

// DashboardRegistration is one registration and its number of callees.
type DashboardRegistration struct {
	ID        uint64 `json:"id"`
	Procedure string `json:"procedure"`
	Match     string `json:"match"`
	Invoke    string `json:"invoke"`
	Callees   int    `json:"callees"`
}

// DashboardSubscription is one subscription and its number of
// subscribers.
type DashboardSubscription struct {
	ID          uint64 `json:"id"`
	Topic       string `json:"topic"`
	Match       string `json:"match"`
	Subscribers int    `json:"subscribers"`
}

// DashboardBridgeService is one HTTP bridge service (caller, publisher,
// webhook, reverse proxy) or REST component (callee, subscriber) and the
// requests it answered (a component: made) since the node started. The
// handler fills the rates.
type DashboardBridgeService struct {
	// Type is "caller", "publisher", "webhook", "eventstream", "api", "proxy",
	// "callee" or "subscriber".
	Type string `json:"type"`
	// Where is the URL path it serves ("/call"), or for a component its
	// Path.
	Where string `json:"where"`
	// Path is its JSON path in the config
	// ("workers[0].transports[0].paths.call", "workers[0].components[1]"):
	// unique in the node.
	Path string `json:"path"`
	// Realm is the realm of its session; "" for a proxy.
	Realm    string `json:"realm"`
	Requests uint64 `json:"requests"`
	// Errors are the requests that failed: no response, or a status of
	// 400 or more.
	Errors uint64 `json:"errors"`
	// MeanMillis is the mean duration of the requests, in milliseconds
	// (0 before the first).
	MeanMillis float64 `json:"mean_ms"`
	// RequestsPerSecond and ErrorsPerSecond are the rates over the last
	// DashboardOptions.Interval or more; nil until there are two samples.
	RequestsPerSecond *float64 `json:"requests_per_second"`
	ErrorsPerSecond   *float64 `json:"errors_per_second"`
}

// DashboardQueue is one Subscriber component's deliveries.
type DashboardQueue struct {
	// Where is the component's JSON path in the config.
	Where     string `json:"where"`
	Realm     string `json:"realm"`
	Depth     int    `json:"depth"`      // events waiting now
	Delivered uint64 `json:"delivered"`  // events the target accepted
	Retried   uint64 `json:"retried"`    // retry attempts
	Dropped   uint64 `json:"dropped"`    // given up after trying
	QueueFull uint64 `json:"queue_full"` // dropped untried: the queue was full
}

// DashboardProxyWorker is one proxy worker: where it sends the sessions
// of each realm and authrole, the client sessions it relays now and the
// joins it let through or refused since the node started. Its lists are
// as long as its config makes them (its routes and the methods of its
// transports), so they are not paged.
type DashboardProxyWorker struct {
	// Worker is its JSON path in the config ("workers[1]").
	Worker string `json:"worker"`
	// Routes are its routes, by realm, then role.
	Routes []DashboardProxyRoute `json:"routes"`
	// Realms are the realms it routes, by name, with their sessions.
	Realms []DashboardProxyRealm `json:"realms"`
	// Joins are its joins and refusals by realm and authmethod, by realm
	// ("other" last), then authmethod.
	Joins []DashboardProxyJoins `json:"joins"`
}

// DashboardProxyRoute sends the sessions of Realm with authrole Role to
// its Connections (by name), each in turn.
type DashboardProxyRoute struct {
	Realm       string   `json:"realm"`
	Role        string   `json:"role"`
	Connections []string `json:"connections"`
}

// DashboardProxyRealm is a realm a proxy worker routes and the client
// sessions it relays there now (the node's own sessions through it
// included).
type DashboardProxyRealm struct {
	Name     string `json:"name"`
	Sessions int    `json:"sessions"`
}

// DashboardProxyJoins are a proxy worker's joins of one realm by one
// authmethod.
type DashboardProxyJoins struct {
	// Realm is "other" for the refusals of realms no route takes.
	Realm string `json:"realm"`
	// AuthMethod is the method the client authenticated with (refused:
	// tried), "other" when none of its transport's methods applied.
	AuthMethod string `json:"authmethod"`
	Joined     uint64 `json:"joined"`  // welcomed and relayed
	Refused    uint64 `json:"refused"` // refused after HELLO
}

// DashboardQuery is what a request asks the Source for: the realm to show
// in detail ("" means the first), and which page of its sessions (from
// 1), PageSize sessions a page.
type DashboardQuery struct {
	Realm    string
	Page     int
	PageSize int
}
